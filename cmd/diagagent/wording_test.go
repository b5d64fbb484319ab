package main

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestTheTreeSpeaksOfTheProduct: no file outside docs/data and the
// CHANGELOG (where runs and releases are dated) narrates how the work went:
// no "used to", no session but SNMP's and AgentX's, no build named by its
// time of day. A manual says what is true now.
func TestTheTreeSpeaksOfTheProduct(t *testing.T) {
	usedTo := regexp.MustCompile(`(?i)\bused to\b`)
	session := regexp.MustCompile(`(?i)\bsessions?\b`)
	protocol := regexp.MustCompile(`(?i)agentx|snmpd|master`)
	clock := regexp.MustCompile(`(?i)\b\d{1,2}:\d{2}( UTC)? (build|binary|commit|tree)\b|\bbuild (of|at|from) \d{1,2}:\d{2}\b`)
	root := "../.."
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			switch rel {
			case ".git", "bin", filepath.Join("docs", "data"), "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".md", ".yaml", ".yml", ".sh", ".txt", ".service", ".js", ".html", ".css":
		default:
			if filepath.Base(path) != "Makefile" {
				return nil
			}
		}
		if rel == "CHANGELOG.md" || strings.HasSuffix(rel, "wording_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		agentx := strings.HasPrefix(rel, filepath.Join("agent", "agentx")+string(filepath.Separator))
		for n, line := range strings.Split(string(b), "\n") {
			switch {
			case usedTo.MatchString(line):
				t.Errorf("%s:%d says what used to be: %s", rel, n+1, strings.TrimSpace(line))
			case session.MatchString(line) && !agentx && !protocol.MatchString(line):
				t.Errorf("%s:%d names a session that is not AgentX's: %s", rel, n+1, strings.TrimSpace(line))
			case clock.MatchString(line):
				t.Errorf("%s:%d names a build by its time of day: %s", rel, n+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d files of the tree, want every source and manual", files)
	}
}

// TestNoBuiltBinaryIsTracked: a program built in the tree (go build in a
// command's folder leaves one beside its source) is never committed; the
// package and the release build every binary from source.
func TestNoBuiltBinaryIsTracked(t *testing.T) {
	if _, err := os.Stat("../../.git"); err != nil {
		t.Skip("not a git checkout (a source tarball): no file is tracked")
	}
	out, err := exec.Command("git", "-C", "../..", "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	magic := [][]byte{{0x7f, 'E', 'L', 'F'}, {'M', 'Z'}, {0xcf, 0xfa, 0xed, 0xfe}}
	files := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	for _, rel := range files {
		f, err := os.Open(filepath.Join("../..", rel))
		if err != nil {
			t.Fatal(err)
		}
		head := make([]byte, 4)
		n, _ := f.Read(head)
		f.Close()
		for _, m := range magic {
			if n >= len(m) && bytes.Equal(head[:len(m)], m) {
				t.Errorf("%s is a built program (%x); it is built from source, not tracked", rel, head[:n])
			}
		}
	}
	if len(files) < 100 {
		t.Fatalf("git tracks %d files, want the whole tree", len(files))
	}
}
