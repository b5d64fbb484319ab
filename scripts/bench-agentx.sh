#!/usr/bin/env bash
# GET latency of the DIAGNOSIS-MIB through net-snmp's snmpd and AgentX against
# the standalone agent, on loopback, servers interleaved, medians of 3
# repetitions (snmpbench compare); writes docs/bench-agentx.md. Needs root
# (the agents ping) and snmpd. usage: scripts/bench-agentx.sh [-quick]
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
[ "${1:-}" = -quick ] && quick=1

work=$(mktemp -d)
pids=()
cleanup() { # only what this script started, newest first
	for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
		kill "${pids[$i]}" 2>/dev/null || true
		wait "${pids[$i]}" 2>/dev/null || true
	done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

go build -o "$work/snmpbench" ./cmd/snmpbench
make -s build BIN="$work" >/dev/null
port=$("$work/snmpbench" freeport)

# snmpd on 127.0.0.1:port as the AgentX master of agent 1.
cat >"$work/snmpd.conf" <<CONF
agentaddress udp:127.0.0.1:$port
master agentx
agentXSocket unix:$work/agentx.sock
rocommunity public 127.0.0.0/8
dontLogTCPWrappersConnects yes
CONF
SNMP_PERSISTENT_DIR="$work/persist" MIBS= snmpd -f -Lo -C -I -smux -c "$work/snmpd.conf" >"$work/snmpd.log" 2>&1 &
snmpd_pid=$!
pids+=("$snmpd_pid")

# Two agents that test each other: agent 1 through snmpd (AgentX), agent 2 on
# 127.0.0.2:port itself.
cat >"$work/lan.yaml" <<CONF
algorithm: vcube
interval: 5s
snmp: {listen: auto, communities: {read: public}}
nodes: [{address: 127.0.0.1, port: $port}, {address: 127.0.0.2, port: $port}]
web: {listen: ""}
state_dir: $work/state{id}
log: {level: warn}
CONF
"$work/diagagent" -config "$work/lan.yaml" -id 0 -snmp.mode agentx -snmp.agentx "unix:$work/agentx.sock" >"$work/agent1.log" 2>&1 &
ax_pid=$!
pids+=("$ax_pid")
"$work/diagagent" -config "$work/lan.yaml" -id 1 >"$work/agent2.log" 2>&1 &
sa_pid=$!
pids+=("$sa_pid")
up=.1.3.6.1.4.1.200.1.4.0
for _ in $(seq 100); do
	a=$(snmpget -v2c -c public -t 0.2 -r 0 -Oqv "127.0.0.1:$port" $up 2>/dev/null || true)
	b=$(snmpget -v2c -c public -t 0.2 -r 0 -Oqv "127.0.0.2:$port" $up 2>/dev/null || true)
	[ "$a" = '"1"' ] && [ "$b" = '"1"' ] && break
	sleep 0.1
done
if [ "$a" != '"1"' ] || [ "$b" != '"1"' ]; then
	echo "bench-agentx: the agents did not answer hiADSDisUP.0 (got '$a' and '$b'); logs:" >&2
	cat "$work/snmpd.log" "$work/agent1.log" "$work/agent2.log" >&2
	exit 1
fi

timing=(-reps 3 -warmup 1s -duration 5s)
out=docs/bench-agentx.md
[ "$quick" = 1 ] && timing=(-reps 1 -warmup 200ms -duration 1s) && out=-
"$work/snmpbench" compare -server "standalone=127.0.0.2:$port@$sa_pid" -server "agentx=127.0.0.1:$port@$snmpd_pid" \
	-ops get,diagbulk -clients 1,4 -get-oid $up "${timing[@]}" -command "scripts/bench-agentx.sh" \
	-note "standalone: diagagent $("$work/diagagent" -version | cut -d' ' -f2) serving UDP itself" \
	-note "agentx: net-snmp $(snmpd -v | grep -m1 -o 'version:.*' | tr -s ' ') as AgentX master (Unix socket), the same diagagent as its subagent; CPU and RSS are snmpd's alone" \
	-note "GET is hiADSDisUP.0, diagbulk a GETBULK x10 down nodeStatus (2 rows): both answered by the diagagent, through snmpd or not" \
	-out "$out" &
pids+=("$!")
wait "$!"
[ "$out" != - ] && echo "bench-agentx: wrote $out" >&2
exit 0
