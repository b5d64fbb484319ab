#!/usr/bin/env bash
# Side-by-side SNMP benchmark: net-snmp's snmpd against the diagagent responder
# on loopback, same closed-loop load (GET, GETNEXT, GETBULK x10 in the system
# group, GETBULK x10 down diagTree's nodeStatus column, at 1/4/16 clients),
# servers interleaved, medians of several repetitions; writes docs/bench-snmp.md.
#
# usage: scripts/bench-snmp.sh [-quick] [-snmpd-only] [-out FILE] [-- extra compare flags]
#   -quick       1 s cells, one repetition, report to stdout unless -out is given
#   -snmpd-only  measure snmpd alone (no diagagent responder)
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0 ours=1 out=docs/bench-snmp.md out_set=0 extra=()
while [ $# -gt 0 ]; do
	case "$1" in
	-quick) quick=1 ;;
	-snmpd-only) ours=0 ;;
	-out) out="$2"; out_set=1; shift ;;
	--) shift; extra=("$@"); break ;;
	*) echo "bench-snmp: unknown flag $1 (see the header of $0)" >&2; exit 2 ;;
	esac
	shift
done
if [ "$quick" = 1 ] && [ "$out_set" = 0 ]; then out=-; fi
invocation="scripts/bench-snmp.sh"
[ "$quick" = 1 ] && invocation+=" -quick"
[ "$ours" = 0 ] && invocation+=" -snmpd-only"
[ ${#extra[@]} -gt 0 ] && invocation+=" -- ${extra[*]}"

work=$(mktemp -d)
pids=()
cleanup() { # newest first, so the load stops before the servers do
	for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
		kill "${pids[$i]}" 2>/dev/null || true
		wait "${pids[$i]}" 2>/dev/null || true
	done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

go build -o "$work/snmpbench" ./cmd/snmpbench
bench="$work/snmpbench"

# await_addr FIFO: prints the address a child writes to FIFO, waiting at most 10 s.
await_addr() {
	local fd addr
	exec {fd}<>"$1"
	if ! read -r -t 10 -u "$fd" addr; then
		echo "bench-snmp: no address on $1 within 10 s" >&2
		return 1
	fi
	exec {fd}<&-
	echo "$addr"
}

# Private snmpd serving the MIB-II system and snmp groups on a free loopback port.
port=$("$bench" freeport)
cat >"$work/snmpd.conf" <<CONF
agentaddress udp:127.0.0.1:$port
rocommunity public 127.0.0.1
sysLocation bench
sysContact bench-$$
dontLogTCPWrappersConnects yes
CONF
# The same 64 diagTree rows as \`snmpbench serve -nodes 64\` (statuses: every 7th
# faulty, every 11th partial), served by snmpd through override lines.
for i in $(seq 64); do
	st=0
	if [ $((i % 7)) = 0 ]; then st=1; elif [ $((i % 11)) = 0 ]; then st=2; fi
	cat >>"$work/snmpd.conf" <<ROW
override .1.3.6.1.4.1.200.1.1.1.1.$i integer $i
override .1.3.6.1.4.1.200.1.1.1.3.$i integer $st
override .1.3.6.1.4.1.200.1.1.1.4.$i unsigned $((i % 5))
override .1.3.6.1.4.1.200.1.1.1.5.$i integer 2
override .1.3.6.1.4.1.200.1.1.1.7.$i integer 2
ROW
done
SNMP_PERSISTENT_DIR="$work/persist" MIBS= snmpd -f -Lo -C -I -smux -c "$work/snmpd.conf" >"$work/snmpd.log" 2>&1 &
snmpd_pid=$!
pids+=("$snmpd_pid")
ready=0
for _ in $(seq 50); do # each try waits up to 0.2 s for a real answer from this snmpd
	contact=$(snmpget -v2c -c public -t 0.2 -r 0 -Oqv "127.0.0.1:$port" 1.3.6.1.2.1.1.4.0 2>/dev/null || true)
	if [ "$contact" = "bench-$$" ] || [ "$contact" = "\"bench-$$\"" ]; then
		ready=1
		break
	fi
	kill -0 "$snmpd_pid" 2>/dev/null || break
done
if [ "$ready" = 0 ]; then
	echo "bench-snmp: snmpd did not answer on 127.0.0.1:$port; its log:" >&2
	cat "$work/snmpd.log" >&2
	exit 1
fi
servers=(-server "snmpd=127.0.0.1:$port@$snmpd_pid")
rev="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
git diff --quiet HEAD -- agent mib cmd/snmpbench 2>/dev/null || rev+=" plus uncommitted changes in agent/, mib/ or cmd/snmpbench/"
notes=(-note "snmpd: net-snmp $(snmpd -v | grep -m1 -o 'version:.*' | tr -s ' '), run as \`snmpd -f -Lo -C -I -smux -c conf\`; conf: agentaddress, rocommunity public 127.0.0.1, sysLocation, sysContact, dontLogTCPWrappersConnects yes, and 5 override lines per diagTree row for 64 rows")

if [ "$ours" = 1 ]; then
	mkfifo "$work/ours.addr"
	"$bench" serve -listen 127.0.0.1:0 -nodes 64 -addr-file "$work/ours.addr" &
	ours_pid=$!
	pids+=("$ours_pid")
	ours_addr=$(await_addr "$work/ours.addr")
	servers+=(-server "ours=$ours_addr@$ours_pid")
	notes+=(-note "ours: diagagent responder (snmp.NewResponder, snmp.Default() config, community public) in \`snmpbench serve -nodes 64\`, a published snapshot of 64 nodes and 32 events, built from commit $rev")
fi

mkfifo "$work/echo.addr" "$work/echob.addr"
"$bench" echo -listen 127.0.0.1:0 -addr-file "$work/echo.addr" &
pids+=("$!")
"$bench" echo -blocking -listen 127.0.0.1:0 -addr-file "$work/echob.addr" &
pids+=("$!")
ceilings=(-ceiling "echo-netpoll=$(await_addr "$work/echo.addr")" -ceiling "echo-blocking=$(await_addr "$work/echob.addr")")

timing=(-reps 3 -warmup 1s -duration 5s)
[ "$quick" = 1 ] && timing=(-reps 1 -warmup 200ms -duration 1s)
# In the background so that INT/TERM reach the trap at once (bash defers traps
# until a foreground child ends); the compare process is stopped by the cleanup too.
"$bench" compare "${servers[@]}" "${notes[@]}" "${timing[@]}" "${ceilings[@]}" \
	-command "$invocation" -out "$out" "${extra[@]}" &
pids+=("$!")
wait "$!"
[ "$out" != - ] && echo "bench-snmp: wrote $out" >&2
exit 0
