package config

import (
	"fmt"
	"strings"
	"testing"

	"github.com/diagagent/diagagent/agent/parts"
)

// TestRedacted checks that no community or pass phrase survives, and that
// the original is untouched.
func TestRedacted(t *testing.T) {
	yaml := `
snmp:
  communities: {read: public, write: private}
  users: [{name: monitor, auth_protocol: sha256, auth_passphrase: change-this-auth, priv_protocol: aes, priv_passphrase: change-this-priv, access: read}]
nodes:
  - {address: 192.0.2.1}
  - {address: 192.0.2.50, tested_only: true, community: printers}
traps: {community: station-secret}
`
	c, err := Parse(parts.Defaults(), "redact.yaml", []byte(yaml), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	text := fmt.Sprintf("%+v", c.Redacted())
	for _, secret := range []string{"public", "private", "printers", "station-secret", "change-this-auth", "change-this-priv"} {
		if strings.Contains(text, secret) {
			t.Errorf("Redacted shows %q: %s", secret, text)
		}
	}
	if c.SNMP.Users[0].AuthPassphrase != "change-this-auth" || c.Nodes[1].Community != "printers" {
		t.Error("Redacted changed the original")
	}
}
