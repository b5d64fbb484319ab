#!/usr/bin/env bash
# make scenario: seed 002's 37-node experiment (section 5.3) on a LAN of network
# namespaces, for Hi-ADSD and vCube at a 2 s interval: a fault (SIGSTOP, SNMP
# silent, host answers ping) at node 16, then 35, then 20 and 21 together, then
# all four repaired. Prints a markdown table beside the paper's figures.
#   scripts/scenario.sh                          # the experiment (about 3 minutes)
#   scripts/scenario.sh -mode soak -loss 1,5     # false suspicions under packet loss
#   scripts/scenario.sh -mode chaos -nodes 16    # random faults under 1% loss (make chaos)
#   scripts/scenario.sh -mode versus -nodes 16   # memberlist side by side (make versus)
# Any lanrun flag may follow (cmd/lanrun -h). The agents' state and logs go
# under a new directory in $DIAGLAN_TMP (default /tmp); DIAGLAN_TMP=/dev/shm
# gives every simulated host a disk of its own in effect: at N = 256 the
# agents' fsyncs on one shared disk stalled the repair's push tree (the last
# agent knew after 0.6 to 1.1 s on /tmp, 0.3 s on /dev/shm, 2026-11-26).
# Needs root. Everything
# it creates (namespaces diaglan-<pid>-*, processes inside) is removed on exit,
# failure or Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" -ne 0 ]; then
	echo "scenario: needs root to create network namespaces (run it with sudo)" >&2
	exit 1
fi
for tool in ip nft snmpwalk snmpget; do
	command -v "$tool" >/dev/null || { echo "scenario: $tool is missing; run scripts/test-deps.sh" >&2; exit 1; }
done
work=$(mktemp -d "${DIAGLAN_TMP:-/tmp}/diaglan-scenario.XXXXXX")
# The agent is built as it ships (static, no cgo: docs/platforms.md); memberlist's
# member is built the same way, so that both map one binary and no libc.
CGO_ENABLED=0 go build -trimpath -o "$work/diagagent" ./cmd/diagagent
go build -C cmd/lanrun -o "$work/lanrun" . # its own module: the plotting library stays out of go.mod
CGO_ENABLED=0 go build -C cmd/swimmember -trimpath -o "$work/swimmember" . # its own module: memberlist stays out of go.mod
cleanup() {
	trap - EXIT INT TERM
	# lanrun removes its LAN itself; this catches a lanrun that was killed.
	"$work/lanrun" -mode sweep || true
	echo "scenario: logs and agent state kept in $work" >&2
}
trap cleanup EXIT INT TERM
"$work/lanrun" -bin "$work/diagagent" -swim "$work/swimmember" -dir "$work" "$@"
