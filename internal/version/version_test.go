package version

import (
	"runtime/debug"
	"testing"
)

func TestFromBuild(t *testing.T) {
	stamped := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v0.4.1-0.20261123120000-abcdef123456+dirty"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abcdef1234567890"}, {Key: "vcs.modified", Value: "true"}}}
	for _, c := range []struct {
		name   string
		bi     *debug.BuildInfo
		ok     bool
		linked string
		want   Info
	}{
		{"stamped from git", stamped, true, "", Info{"v0.4.1-0.20261123120000-abcdef123456", "abcdef1234567890-dirty", "go1.26.0", ""}},
		{"set at link time", stamped, true, "1.2.0", Info{"1.2.0", "abcdef1234567890-dirty", "go1.26.0", ""}},
		{"go run outside git", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}}, true, "",
			Info{"devel", "unknown", "go1.26.0", ""}},
	} {
		Version = c.linked
		if got := fromBuild(c.bi, c.ok); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
	Version = ""
	if s := (Info{"v1.0.0", "abc", "go1.26.0", ""}).String(); s != "diagagent v1.0.0 (revision abc, go1.26.0)" {
		t.Errorf("String() = %q", s)
	}
	if s := (Info{"v1.0.0", "abc", "go1.26.0", "2026-11-26"}).String(); s != "diagagent v1.0.0 (revision abc, go1.26.0, 2026-11-26)" {
		t.Errorf("String() with a date = %q", s)
	}
}
