package config

import (
	"strings"
	"testing"

	"github.com/diagagent/diagagent/agent/parts"
)

// TestManPageListsEveryKey: the manual names every key, with its variable
// and flag when it has them, and every field of the list keys.
func TestManPageListsEveryKey(t *testing.T) {
	page := ManPage(parts.Defaults(), "1.2.3", "2026-11-23")
	if !strings.HasPrefix(page, `.TH DIAGAGENT 8 "2026\-11\-23" "diagagent 1.2.3"`) {
		t.Errorf("title line: %q", strings.SplitN(page, "\n", 2)[0])
	}
	for _, k := range Keys(parts.Defaults()) {
		if !strings.Contains(page, ".B "+roff(k.Name)+"\n") {
			t.Errorf("the manual lacks key %s", k.Name)
		}
		if !k.FileOnly && !strings.Contains(page, `\fB`+roff(k.Env)+`\fR, flag \fB\-`+roff(k.Name)+`\fR`) {
			t.Errorf("the manual lacks the variable and flag of %s", k.Name)
		}
	}
	for _, field := range []string{"address", "tested_only", "auth_protocol"} {
		if !strings.Contains(page, ".B "+roff(field)+"\n") {
			t.Errorf("the manual lacks list field %s", field)
		}
	}
	for _, line := range strings.Split(page, "\n") {
		if strings.HasPrefix(line, "'") {
			t.Errorf("a line starts a roff request by accident: %q", line)
		}
	}
}

func TestRoff(t *testing.T) {
	for in, want := range map[string]string{"a-b": `a\-b`, `c:\x`: `c:\ex`, ".dot": `\&.dot`, "'q": `\&'q`} {
		if got := roff(in); got != want {
			t.Errorf("roff(%q) = %q, want %q", in, got, want)
		}
	}
}
