package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigCheckRefusesUnwritableStateDir is issue 13's defect 11 at the
// command line: -config.check fails with one line naming state_dir when the
// state cannot be written, instead of passing and letting the agent die on
// its first save.
func TestConfigCheckRefusesUnwritableStateDir(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		stateDir string
		code     int
	}{{filepath.Join(file, "state"), 2}, {filepath.Join(dir, "state"), 0}} {
		conf := filepath.Join(dir, "diagagent.yaml")
		yaml := "id: 0\nnodes: [{address: 192.0.2.1}, {address: 192.0.2.2}]\nstate_dir: " + c.stateDir + "\n"
		if err := os.WriteFile(conf, []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		code := run([]string{"-config", conf, "-config.check"}, nil, io.Discard, &stderr)
		msg := stderr.String()
		if code != c.code {
			t.Fatalf("state_dir %s: exit %d, want %d: %s", c.stateDir, code, c.code, msg)
		}
		if c.code != 0 && (!strings.HasPrefix(msg, "state_dir: ") || strings.Count(msg, "\n") != 1) {
			t.Fatalf("state_dir %s: %q, want one line naming state_dir", c.stateDir, msg)
		}
	}
}

// TestVersion: -version prints one line naming the build and reads no
// configuration (the default file need not exist).
func TestVersion(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"-version", "-config", filepath.Join(t.TempDir(), "absent.yaml")}, nil, &stdout, &stderr)
	if code != 0 || stderr.Len() != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	if out := stdout.String(); !strings.HasPrefix(out, "diagagent ") || !strings.Contains(out, "(revision ") || strings.Count(out, "\n") != 1 {
		t.Errorf("-version printed %q", out)
	}
}
