#!/usr/bin/env bash
# Runs `go test ./...` (the unit tests) the way a contributor without the
# test tools would: as an unprivileged user, in a mount namespace where
# net-snmp, smitools, nftables, ping, ip and Chromium are hidden. It checks
# that the unit tests need none of them (the tests that do carry the
# `integration` build tag, which `make test` sets). Needs root to set up.
#   scripts/unit-env.sh [go test flags...]
set -euo pipefail
cd "$(dirname "$0")/.."
user=${UNIT_USER:-diagunit}
id "$user" >/dev/null 2>&1 || useradd --system --create-home "$user"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r . "$work/src"
# The module cache, readable by the user, used offline.
cp -r "$(go env GOMODCACHE)" "$work/mod"
chown -R "$user" "$work"
hide=""
for tool in snmpget snmpgetnext snmpbulkget snmpwalk snmpbulkwalk snmpset snmptranslate snmpd snmptrapd \
	smilint smidump nft ping ip chromium chromium-browser; do
	for dir in /usr/bin /usr/sbin /bin /sbin; do
		[ -e "$dir/$tool" ] && [ ! -L "$dir/$tool" ] && hide="$hide $dir/$tool"
	done
done
goroot=$(go env GOROOT)
exec unshare --mount bash -c '
	set -e
	for f in '"$hide"'; do mount --bind /dev/null "$f"; done
	exec su -s /bin/bash '"$user"' -c "cd '"$work"'/src && export PATH='"$goroot"'/bin:/usr/bin:/bin GOMODCACHE='"$work"'/mod GOPROXY=off GOFLAGS=-mod=mod GOCACHE='"$work"'/cache GOTOOLCHAIN=local && \
		for t in snmpget snmpd nft ping chromium smilint; do for d in /usr/bin /usr/sbin; do [ ! -x \$d/\$t ] || { echo unit-env: \$d/\$t still runs; exit 1; }; done; done && \
		echo unit-env: running as \$(id -un), tools hidden && time go test '"$*"' ./..."
'
