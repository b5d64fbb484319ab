package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestTroubleshootingNamesEveryWarning: docs/troubleshooting.md has an
// entry for each warning the agent logs (every log call at warning level
// in agent/, traps/ and this command whose message begins with text), and
// every entry's line is one the code really writes.
func TestTroubleshootingNamesEveryWarning(t *testing.T) {
	page, err := os.ReadFile("../../docs/troubleshooting.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, _ := strings.Cut(string(page), "## Warnings, one by one\n")
	table, _, _ = strings.Cut(table, "\n## ")
	quoted := regexp.MustCompile("`([^`]+)`")
	var entries []string
	for _, line := range strings.Split(table, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		first, _, _ := strings.Cut(strings.TrimPrefix(line, "| "), " | ")
		for _, m := range quoted.FindAllStringSubmatch(first, -1) {
			entries = append(entries, m[1])
		}
	}
	if len(entries) < 10 {
		t.Fatalf("%d entries in the warnings table of docs/troubleshooting.md", len(entries))
	}
	var code strings.Builder
	warn := regexp.MustCompile(`\.Warnf?\(\s*"((?:[^"\\]|\\.)*)"`)
	var warnings []string
	for _, dir := range []string{"../../agent", "../../traps", "."} {
		err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			code.Write(b)
			for _, m := range warn.FindAllStringSubmatch(string(b), -1) {
				warnings = append(warnings, strings.ReplaceAll(m[1], `\"`, `"`))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(warnings)
	for _, w := range slices.Compact(warnings) {
		named := false
		for _, e := range entries {
			named = named || strings.HasPrefix(w, e)
		}
		if !named {
			t.Errorf("the warning %q has no entry in docs/troubleshooting.md (an entry's line begins it)", w)
		}
	}
	for _, e := range entries {
		if !strings.Contains(code.String(), e) {
			t.Errorf("docs/troubleshooting.md names %q, which no log line, notification or metric in the code says", e)
		}
	}
}
