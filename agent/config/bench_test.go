package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/diagagent/diagagent/agent/parts"
)

// BenchmarkParse measures loading the commented example file with one variable and one flag.
func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(configsDir, "diagagent.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	env := []string{"DIAG_INTERVAL=10s", "HOME=/root"}
	for b.Loop() {
		fs, _ := parseFlags(b, "-algorithm", "hiadsd")
		if _, err := Parse(parts.Defaults(), "diagagent.yaml", data, env, fs); err != nil {
			b.Fatal(err)
		}
	}
}
