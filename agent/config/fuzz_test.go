package config

import (
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/diagagent/diagagent/agent/parts"
)

// FuzzLoad feeds arbitrary bytes to the decoder: it must never panic, and it must return
// either one-line mistakes or a configuration that validates and resolves.
func FuzzLoad(f *testing.F) {
	for _, name := range []string{"diagagent.yaml", "cluster-local.yaml"} {
		if data, err := os.ReadFile(filepath.Join(configsDir, name)); err == nil {
			f.Add(data)
		}
	}
	for _, tc := range mistakeCases() {
		f.Add([]byte(tc.yaml))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(parts.Defaults(), "fuzz.yaml", data, nil, nil)
		if err != nil {
			checkMistakes(t, err)
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("Parse accepted a configuration that does not validate: %v", err)
		}
		id, err := ResolveID(c, []netip.Addr{netip.MustParseAddr("127.0.0.1")})
		if err == nil {
			c.SNMPListen(id)
			c.WebListen(id)
		}
	})
}

// checkMistakes asserts that every line of err is one mistake in the documented form.
func checkMistakes(t *testing.T, err error) {
	t.Helper()
	lines := strings.Split(err.Error(), "\n")
	if ms := Mistakes(err); len(ms) != len(lines) {
		t.Fatalf("%d mistakes for %d lines: %q", len(ms), len(lines), err)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "config: ") {
			t.Fatalf("line %q does not start with \"config: \"", l)
		}
	}
}
