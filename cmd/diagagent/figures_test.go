package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestREADMEFigures: each row of the README's table of figures holds one
// figure (no second clause: no ";" nor parenthesis), the command that
// measures it, and a link to the page under docs/ that holds the run; every
// number of the figure appears in that page, so a figure cannot change in
// the README alone.
func TestREADMEFigures(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "## What it costs and how fast it knows\n")
	section, _, _ = strings.Cut(section, "\n## ")
	if !ok {
		t.Fatal("README.md has no section \"What it costs and how fast it knows\"")
	}
	number := regexp.MustCompile(`\d+(,\d{3})*(\.\d+)?`)
	link := regexp.MustCompile(`\]\(([^)]+)\)`)
	rows := 0
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| ---") || strings.HasPrefix(line, "| | figure") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) != 3 {
			t.Errorf("a row of %d cells, want what, figure, command and page: %s", len(cells), line)
			continue
		}
		rows++
		what, figure, source := cells[0], cells[1], cells[2]
		if strings.ContainsAny(figure, ";()") {
			t.Errorf("%s: %q holds more than one figure", what, figure)
		}
		links := link.FindAllStringSubmatch(source, -1)
		if len(links) != 1 || !strings.Contains(source, "`") {
			t.Errorf("%s: %q is not one command and one page", what, source)
			continue
		}
		page := links[0][1]
		if !strings.HasPrefix(page, "docs/") {
			t.Errorf("%s: the page %s is not under docs/", what, page)
			continue
		}
		text, err := os.ReadFile(filepath.Join("../..", page))
		if err != nil {
			t.Errorf("%s: %v", what, err)
			continue
		}
		for _, n := range number.FindAllString(figure, -1) {
			if !strings.Contains(string(text), n) {
				t.Errorf("%s: %s of %q is not in %s", what, n, figure, page)
			}
		}
	}
	if rows < 10 {
		t.Fatalf("%d rows of figures, want the README's table", rows)
	}
}
