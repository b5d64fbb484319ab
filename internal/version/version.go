// Package version says which build of diagagent is running, for
// `diagagent -version`, sysDescr and the diagagent_build_info metric.
//
// The version is the one the Go toolchain stamps from the module or its
// VCS (a tag, or a pseudo-version for a commit), unless the build sets it:
//
//	go build -ldflags "-X github.com/diagagent/diagagent/internal/version.Version=1.2.0 \
//		-X github.com/diagagent/diagagent/internal/version.Date=2026-11-23" ./cmd/diagagent
package version

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// Version overrides the stamped version when set at link time.
var Version string

// Date is the day of the source the build was made from (YYYY-MM-DD), set
// at link time; the manual page carries it. Empty when not set.
var Date string

// Info is one build's identity.
type Info struct {
	Version   string // a release such as v1.2.0, a pseudo-version, or "devel"
	Revision  string // the VCS commit, with "-dirty" if the tree was modified; "unknown" if not stamped
	GoVersion string
	Date      string // Date, or empty
}

// Get reads the build's identity.
func Get() Info {
	return fromBuild(debug.ReadBuildInfo())
}

// fromBuild is Get with the build information explicit.
func fromBuild(bi *debug.BuildInfo, ok bool) Info {
	in := Info{Version: "devel", Revision: "unknown", GoVersion: runtime.Version()}
	if ok {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			in.Version = strings.TrimSuffix(v, "+dirty")
		}
		var rev string
		dirty := false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if rev != "" {
			in.Revision = rev
			if dirty {
				in.Revision += "-dirty"
			}
		}
		if bi.GoVersion != "" {
			in.GoVersion = bi.GoVersion
		}
	}
	if Version != "" {
		in.Version = Version
	}
	in.Date = Date
	return in
}

// String is the line `diagagent -version` prints.
func (i Info) String() string {
	s := "diagagent " + i.Version + " (revision " + i.Revision + ", " + i.GoVersion
	if i.Date != "" {
		s += ", " + i.Date
	}
	return s + ")"
}
