package version

import (
	"os"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
)

func TestFromBuild(t *testing.T) {
	stamped := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v0.4.1-0.20261123120000-abcdef123456+dirty"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abcdef1234567890"}, {Key: "vcs.modified", Value: "true"}}}
	clean := &debug.BuildInfo{GoVersion: "go1.26.0", Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abcdef1234567890"}}}
	pre := strings.Contains(Release, "-")
	plus := func(meta string) string { return Release + "+" + meta }
	cleanVersion := Release
	if pre {
		cleanVersion = plus("abcdef123456")
	}
	for _, c := range []struct {
		name             string
		bi               *debug.BuildInfo
		ok               bool
		linked, revision string
		want             Info
	}{
		{"stamped from git, modified", stamped, true, "", "", Info{plus("abcdef123456.dirty"), "abcdef1234567890-dirty", "go1.26.0", ""}},
		{"stamped from git", clean, true, "", "", Info{cleanVersion, "abcdef1234567890", "go1.26.0", ""}},
		{"set at link time", stamped, true, "1.2.0", "", Info{"1.2.0", "abcdef1234567890-dirty", "go1.26.0", ""}},
		{"revision at link time", &debug.BuildInfo{GoVersion: "go1.26.0"}, true, "", "abcdef1234567890", Info{cleanVersion, "abcdef1234567890", "go1.26.0", ""}},
		{"no git at all", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}}, true, "", "",
			Info{Release, "unknown", "go1.26.0", ""}},
	} {
		Version, Revision = c.linked, c.revision
		if got := fromBuild(c.bi, c.ok); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
	Version, Revision = "", ""
	if s := (Info{"1.0.0", "abc", "go1.26.0", ""}).String(); s != "diagagent 1.0.0 (revision abc, go1.26.0)" {
		t.Errorf("String() = %q", s)
	}
	if s := (Info{"1.0.0", "abc", "go1.26.0", "2026-11-26"}).String(); s != "diagagent 1.0.0 (revision abc, go1.26.0, 2026-11-26)" {
		t.Errorf("String() with a date = %q", s)
	}
}

// TestChangelogHoldsRelease: the CHANGELOG's newest released section is
// Release when the tree is a release; between releases (Release X.Y.Z-dev)
// it is older than X.Y.Z and an [Unreleased] section sits above it. Each
// section has its compare link at the foot.
func TestChangelogHoldsRelease(t *testing.T) {
	b, err := os.ReadFile("../../CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	log := string(b)
	if !regexp.MustCompile(`^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$`).MatchString(Release) {
		t.Fatalf("Release %q is no Semantic Versioning 2.0 version", Release)
	}
	sections := regexp.MustCompile(`(?m)^## \[([^\]]+)\]`).FindAllStringSubmatch(log, -1)
	var newest string
	unreleased := false
	for _, s := range sections {
		if s[1] == "Unreleased" {
			unreleased = true
			continue
		}
		newest = s[1]
		break
	}
	base, pre, _ := strings.Cut(Release, "-")
	switch {
	case newest == "":
		t.Fatal("CHANGELOG.md has no released section")
	case pre == "" && (newest != Release || unreleased):
		t.Fatalf("Release %s: the CHANGELOG's newest section is [%s] (unreleased section: %v); want [%s] on top", Release, newest, unreleased, Release)
	case pre != "" && (!unreleased || !older(newest, base)):
		t.Fatalf("Release %s: the CHANGELOG's newest released section is [%s], unreleased section %v; want one older than %s below [Unreleased]", Release, newest, unreleased, base)
	}
	for _, s := range sections {
		if !strings.Contains(log, "\n["+s[1]+"]: ") {
			t.Errorf("CHANGELOG.md: section [%s] has no link at the foot", s[1])
		}
	}
}

// older reports whether version a (X.Y.Z) comes before b.
func older(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for k := range min(len(pa), len(pb)) {
		x, _ := strconv.Atoi(pa[k])
		y, _ := strconv.Atoi(pb[k])
		if x != y {
			return x < y
		}
	}
	return len(pa) < len(pb)
}
