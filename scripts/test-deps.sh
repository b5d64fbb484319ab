#!/usr/bin/env bash
# Installs the Debian packages the test suite drives (net-snmp tools and daemons,
# smitools, ping, iproute2, nftables, chromium, promtool, tcpdump, qemu-user, rpm, wine64,
# MinGW-w64, systemd, Icinga 2) when any of them is missing, and builds the pinned nfpm.
# Tests never skip for a missing tool: this script runs first in `make test`.
set -euo pipefail

need=()
check() { # check COMMAND PACKAGE...
	local cmd=$1
	shift
	command -v "$cmd" >/dev/null 2>&1 || [ -x "/usr/sbin/$cmd" ] || need+=("$@")
}
check snmpget snmp
check snmpd snmpd
check snmptrapd snmptrapd
check smilint smitools
check ping iputils-ping
check ip iproute2
check nft nftables
check chromium chromium fonts-liberation # the font only Recommended, for legible screenshots
check promtool prometheus                # promtool checks and tests the alerting rules
check tcpdump tcpdump                     # captures what agents send each other (the keyring test)
check qemu-aarch64 qemu-user              # runs the arm64 binary and package (TestRelease)
check rpm rpm                             # reads the RPMs make release builds
check /usr/lib/wine/wine64 wine64         # runs the Windows build (TestWindowsBuildUnderWine)
check x86_64-w64-mingw32-gcc gcc-mingw-w64-x86-64-win32 # builds the ProcessPrng stub Wine 8.0 lacks
check /lib/systemd/systemd systemd        # runs the packaged unit for real (TestDebianPackage)
check nsenter util-linux                  # unshare and nsenter boot that systemd in namespaces
check icinga2 icinga2-bin                 # runs diagagent check as its CheckCommand (TestMembersAndCheck)

if [ ${#need[@]} -gt 0 ]; then
	echo "test-deps: installing ${need[*]}" >&2
	if [ "$(id -u)" -ne 0 ]; then
		echo "test-deps: need root to apt-get install ${need[*]}" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# nfpm builds the packages (make deb, make release) at the release the Makefile pins;
# go run keeps the binary it builds in Go's build cache, so it is built here, once, and
# no package test waits for it.
nfpm=$(sed -n 's/^NFPM *?= *$(GO) run \(.*\)$/\1/p' "$(dirname "$0")/../Makefile")
[ -n "$nfpm" ] || { echo "test-deps: no NFPM line in the Makefile" >&2; exit 1; }
go run "$nfpm" --version >/dev/null
