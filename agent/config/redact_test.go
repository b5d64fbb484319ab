package config

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedacted checks that no community or pass phrase of the example survives, and
// that the original is untouched.
func TestRedacted(t *testing.T) {
	c, err := Load(filepath.Join(configsDir, "diagagent.yaml"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	text := fmt.Sprintf("%+v", c.Redacted())
	for _, secret := range []string{"public", "private", "printers", "change-this-auth", "change-this-priv"} {
		if strings.Contains(text, secret) {
			t.Errorf("Redacted shows %q: %s", secret, text)
		}
	}
	if c.SNMP.Users[0].AuthPassphrase != "change-this-auth" || c.Nodes[3].Community != "printers" {
		t.Error("Redacted changed the original")
	}
}
