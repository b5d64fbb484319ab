#!/usr/bin/env bash
# Runs `go test ./...` (the unit tests) the way a contributor without the
# test tools would, twice: as an unprivileged user, and as root with no
# capabilities at all (a container, a unit with an empty bounding set), in a
# mount namespace where net-snmp, smitools, nftables, ping, ip and Chromium
# are hidden. It checks that the unit tests need none of them and no
# privilege (the tests that do carry the `integration` build tag, which
# `make test` sets). Needs root to set up.
#   scripts/unit-env.sh [go test flags...]
set -euo pipefail
cd "$(dirname "$0")/.."
user=${UNIT_USER:-diagunit}
id "$user" >/dev/null 2>&1 || useradd --system --create-home "$user"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
# One copy of the tree and of the module cache (used offline) for each run.
for who in user root; do
	mkdir -p "$work/$who"
	cp -r . "$work/$who/src"
	cp -r "$(go env GOMODCACHE)" "$work/$who/mod"
done
chown -R "$user" "$work/user"
# The run itself: in one copy, the tools hidden, offline.
cat >"$work/run.sh" <<INNER
#!/usr/bin/env bash
set -euo pipefail
w=\$1
shift
cd "\$w/src"
export PATH=$(go env GOROOT)/bin:/usr/bin:/bin GOMODCACHE=\$w/mod GOPROXY=off GOFLAGS=-mod=mod GOCACHE=\$w/cache GOTOOLCHAIN=local
for t in snmpget snmpd nft ping chromium smilint; do
	for d in /usr/bin /usr/sbin; do
		[ ! -x "\$d/\$t" ] || { echo "unit-env: \$d/\$t still runs"; exit 1; }
	done
done
echo "unit-env: running as \$(id -un), \$(grep CapEff /proc/self/status), tools hidden"
time go test "\$@" ./...
INNER
chmod 755 "$work/run.sh"
hide=""
for tool in snmpget snmpgetnext snmpbulkget snmpwalk snmpbulkwalk snmpset snmptranslate snmpd snmptrapd \
	smilint smidump nft ping ip chromium chromium-browser; do
	for dir in /usr/bin /usr/sbin /bin /sbin; do
		[ -e "$dir/$tool" ] && [ ! -L "$dir/$tool" ] && hide="$hide $dir/$tool"
	done
done
exec unshare --mount bash -c '
	set -e
	for f in '"$hide"'; do mount --bind /dev/null "$f"; done
	su -s /bin/bash '"$user"' -c "'"$work"'/run.sh '"$work"'/user $*" -- bash "$@"
	setpriv --bounding-set=-all --inh-caps=-all --ambient-caps=-all '"$work"'/run.sh '"$work"'/root "$@"
' -- "$@"
