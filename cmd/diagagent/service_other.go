//go:build !windows

package main

import (
	"fmt"
	"io"
)

// reloadLabel names what asks the agent to reload, in its log lines.
const reloadLabel = "SIGHUP"

// runService is false here: only Windows starts the agent as a service
// of its own kind; systemd and launchd run it as any process.
func runService([]string, []string) (int, bool) { return 0, false }

// serviceCmd answers diagagent service where there is no Windows service
// manager.
func serviceCmd(args, _ []string, _, stderr io.Writer) int {
	fmt.Fprintln(stderr, "diagagent service controls the Windows service; on Linux the package installs a systemd unit (systemctl enable --now diagagent), on macOS configs/macos has a launchd plist")
	if len(args) == 1 && (args[0] == "-h" || args[0] == "-help") {
		return 0
	}
	return 2
}
