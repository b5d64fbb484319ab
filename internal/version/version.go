// Package version says which build of diagagent is running, for
// `diagagent -version`, sysDescr and the diagagent_build_info metric.
//
// The version is Release, the tree's own (release.go), with the commit as
// build metadata when Release is a prerelease (1.1.0-dev+3475f8b99f18) or
// the tree was modified. The Makefile sets the same at link time, with the
// revision the Go toolchain cannot stamp where VCS stamping is off:
//
//	go build -ldflags "-X github.com/diagagent/diagagent/internal/version.Version=1.2.0 \
//		-X github.com/diagagent/diagagent/internal/version.Revision=<commit> \
//		-X github.com/diagagent/diagagent/internal/version.Date=2026-11-23" ./cmd/diagagent
package version

import (
	"cmp"
	"runtime"
	"runtime/debug"
	"strings"
)

// Version overrides the version when set at link time.
var Version string

// Revision is the VCS commit, set at link time where the toolchain's
// stamp is off (GOFLAGS=-buildvcs=false); a stamp, when there is one, wins.
var Revision string

// Date is the day of the source the build was made from (YYYY-MM-DD), set
// at link time; the manual page carries it. Empty when not set.
var Date string

// Info is one build's identity.
type Info struct {
	Version   string // Release, with the commit as build metadata unless a clean release
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
	in := Info{Version: Release, Revision: cmp.Or(Revision, "unknown"), GoVersion: runtime.Version()}
	dirty := false
	if ok {
		var rev string
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
	if rev := strings.TrimSuffix(in.Revision, "-dirty"); rev != "unknown" && (strings.Contains(Release, "-") || dirty) {
		in.Version += "+" + rev[:min(len(rev), 12)]
		if dirty {
			in.Version += ".dirty"
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
