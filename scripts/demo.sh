#!/usr/bin/env bash
# make demo: an 8-node diagagent cluster on 127.0.0.1 .. 127.0.0.8 (vCube, 2 s
# interval, configs/cluster-local.yaml, one cluster key made with diagagent
# keygen: the agents speak SNMPv3 authPriv to each other), and a station on
# 127.0.0.100:1162 (diagagent traps); it stops agent 5 and shows what every
# agent reports (diagagent members) and what the station received. It needs
# nothing but the build: with net-snmp's snmpwalk installed it also shows
# the same through it. Ctrl-C stops everything it started (by PID).
# DEMO_WAIT=0 exits after the show instead of waiting for Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/.."

conf=configs/cluster-local.yaml
agentbin=${DIAGAGENT:-bin/diagagent} # the test suite runs the demo with its own build
run=/tmp/diagagent-demo
rm -rf "$run" && mkdir -p "$run"
pids=()
cleanup() {
	trap - EXIT INT TERM
	echo; echo "demo: stopping ${#pids[@]} processes"
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
}
trap cleanup EXIT INT TERM

# statuses K: what agent K (1-based) holds of each node, one digit per node
# as nodeStatus numbers them, read with diagagent members.
statuses() {
	"$agentbin" members -config "$conf" -community public -agent "127.0.0.$1:1161" 2>/dev/null |
		awk 'NR > 1 { s = $4; printf "%d", (s == "fault-free" ? 0 : s == "faulty" ? 1 : s == "partial" ? 2 : 3) }' || true
}
# wait_all WHAT WANT [SKIP]: until every agent but SKIP reports the column WANT.
wait_all() {
	local what=$1 want=$2 skip=${3:-0} deadline=$((SECONDS + 60)) ok
	printf 'demo: waiting until %s ' "$what"
	while :; do
		ok=1
		for k in 1 2 3 4 5 6 7 8; do
			[ "$k" = "$skip" ] && continue
			[ "$(statuses "$k")" = "$want" ] || { ok=0; break; }
		done
		[ $ok = 1 ] && { echo "(done)"; return; }
		[ $SECONDS -ge $deadline ] && { echo "(gave up after 60 s)"; exit 1; }
		printf .; sleep 0.5
	done
}
show() {
	echo "  agent        node: 1 2 3 4 5 6 7 8   (0 fault-free, 1 faulty, 2 partial, 3 unknown, 4 degraded)"
	for k in 1 2 3 4 5 6 7 8; do
		s=$(statuses "$k" | sed 's/./& /g'); printf '  127.0.0.%s:1161      %s\n' "$k" "${s:-(not answering)}"
	done
}

# Another demo still running holds the ports: say so rather than read its agents.
if command -v ss >/dev/null && ss -Hlun 'sport = :1161' | grep -q .; then
	echo "demo: UDP port 1161 is taken on this host (another demo still running? ss -lunp 'sport = :1161' names it)" >&2
	exit 1
fi
"$agentbin" traps -listen 127.0.0.100:1162 >"$run/station.log" 2>"$run/station.err" &
pids+=($!)
(umask 077 && "$agentbin" keygen >"$run/keyring")
for k in 0 1 2 3 4 5 6 7; do
	"$agentbin" -config "$conf" -id "$k" -keyring "$run/keyring" >"$run/agent$((k + 1)).log" 2>&1 &
	pids+=($!)
done
agent5=${pids[5]}
echo "demo: 8 agents (vCube, interval 2 s) on 127.0.0.1-8:1161, a station (diagagent traps) on 127.0.0.100:1162; logs in $run"
echo "demo: the agents test and push each other with the cluster key in $run/keyring (SNMPv3 authPriv); managers read with the community"
echo "demo: each agent's page: http://127.0.0.1:8161/ ... http://127.0.0.8:8161/ (metrics at /metrics)"
wait_all "every agent holds every node fault-free" 00000000
show
echo; echo "\$ diagagent members -agent 127.0.0.1:1161   (agent 1's view)"
"$agentbin" members -config "$conf" -community public -agent 127.0.0.1:1161
if snmpwalk -V >/dev/null 2>&1; then # installed, and it runs
	echo; echo "\$ snmpwalk -v2c -c public 127.0.0.1:1161 nodeStatus"
	snmpwalk -v2c -c public -M "-$PWD/mib/ietf:$PWD/mib" -m DIAGNOSIS-MIB:SNMPv2-MIB 127.0.0.1:1161 nodeStatus
else
	echo; echo "demo: (with net-snmp's tools, apt-get install snmp, snmpwalk -v2c -c public 127.0.0.1:1161 nodeStatus shows the same)"
fi

echo; echo "demo: stopping agent 5 (SIGTERM): its host still answers ping, so it becomes partial (2)"
kill "$agent5"
wait_all "every other agent reports node 5 partial" 00002000 5
show
# A partial verdict is notified once it has held traps.partial_hold (5 s).
printf 'demo: waiting for the station to be told (a partial verdict is notified once it has held 5 s) '
for _ in $(seq 1 40); do
	grep -q 'diagEventNodeID[.0-9]* = 5$' "$run/station.log" && break
	printf .; sleep 0.5
done
echo
echo; echo "demo: what the station (diagagent traps) received:"
echo "  $(grep -c ' from ' "$run/station.log" || true) notifications in all; the first about node 5:"
awk '/ from / { if (found) exit; block = "" } { block = block $0 "\n" } /diagEventNodeID[.0-9]* = 5$/ { found = 1 } END { if (found) printf "%s", block }' "$run/station.log"
echo; echo "demo: the event log line of an agent that tested node 5 itself:"
grep -h 'how=direct' "$run"/agent*.log | grep 'node=5' | head -3

if [ "${DEMO_WAIT:-1}" = 1 ] && [ -t 0 ]; then
	echo; echo "demo: the cluster keeps running; try $agentbin members -config $conf -community public -agent 127.0.0.3:1161 (or snmpwalk -v2c -c public 127.0.0.3:1161 .1.3.6.1.4.1.200); Ctrl-C stops it"
	wait
fi
