//go:build linux

// Package winetest runs diagagent's Windows build under Wine for the
// tests: a Wine prefix of the test's own, with the bcryptprimitives.dll
// that Go's runtime loads from System32 and Debian 12's Wine 8.0 lacks
// (built from testdata/bcryptprimitives.c with MinGW-w64).
package winetest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Wine is the 64-bit Wine loader Debian installs (wine64 has no link in
// /usr/bin).
const Wine = "/usr/lib/wine/wine64"

// Prefix makes a Wine prefix under a temporary directory and installs
// the ProcessPrng stub in its System32; Run runs in it. When the test
// ends, its wineserver is stopped. The environment is left alone: tests
// with a prefix each run side by side.
func Prefix(t *testing.T) string {
	t.Helper()
	prefix := filepath.Join(t.TempDir(), "wine")
	t.Cleanup(func() { _ = command(prefix, filepath.Join(filepath.Dir(Wine), "wineserver"), "-k").Run() })
	if out, err := command(prefix, Wine, "wineboot", "--init").CombinedOutput(); err != nil {
		t.Fatalf("wineboot --init: %v\n%s", err, out)
	}
	sys32 := filepath.Join(prefix, "drive_c", "windows", "system32")
	if _, err := os.Stat(sys32); err != nil {
		t.Fatalf("the Wine prefix has no System32: %v", err)
	}
	_, self, _, _ := runtime.Caller(0)
	src := filepath.Dir(self)
	out, err := exec.Command("x86_64-w64-mingw32-gcc", "-O2", "-shared", "-o", filepath.Join(sys32, "bcryptprimitives.dll"),
		filepath.Join(src, "testdata", "bcryptprimitives.c"), filepath.Join(src, "testdata", "bcryptprimitives.def"), "-ladvapi32").CombinedOutput()
	if err != nil {
		t.Fatalf("build bcryptprimitives.dll with MinGW-w64: %v\n%s", err, out)
	}
	return prefix
}

// Build compiles the Windows build of the package at pkg into dir.
func Build(t *testing.T, pkg, dir string) string {
	t.Helper()
	exe := filepath.Join(dir, "diagagent.exe")
	cmd := exec.Command("go", "build", "-o", exe, pkg)
	cmd.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build for windows/amd64: %v\n%s", err, out)
	}
	return exe
}

// Run runs exe under Wine, in prefix, with args and returns what it
// printed.
func Run(prefix, exe string, args ...string) (string, error) {
	out, err := command(prefix, Wine, append([]string{exe}, args...)...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("wine %s %s: %w", filepath.Base(exe), strings.Join(args, " "), err)
	}
	return string(out), nil
}

// command is name with args, run in the Wine prefix, quiet.
func command(prefix, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "WINEPREFIX="+prefix, "WINEDEBUG=-all")
	return cmd
}
