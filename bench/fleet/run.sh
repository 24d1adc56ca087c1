#!/bin/bash
# The fleet's load throughput and query times at 10 and 100 traces.
#
#   bench/fleet/run.sh [--tp PATH] [--counts "10 100"] SOURCE.pftrace...
#
# For each count N: synthesizes N traces from the recorded SOURCEs
# (bench/fleet/synth.py: new trace ids, hosts and kernels), starts two
# ClickHouse shards on private ports (tools/fleet start), loads the traces
# (tools/fleet load, all cores) and runs each query in tools/fleet_queries
# three times. Prints MB/s and rows/s of the load and each query's median
# time; the shards are stopped and the data removed afterwards.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
tp=""
counts="10 100"
while [ $# -gt 0 ]; do
	case "$1" in
	--tp) tp=$2; shift 2 ;;
	--counts) counts=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 1; }
work=$(mktemp -d /tmp/bench-fleet.XXXXXX)
export FARO_FLEET_DIR=$work/fleet
trap '"$top/tools/fleet" stop >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
fleet() { "$top/tools/fleet" "$@" ${tp:+--tp "$tp"}; }

printf '| traces | MB | rows | load s | MB/s | rows/s |'
for q in "$top"/tools/fleet_queries/*.sql; do printf ' %s ms |' "$(basename "$q" .sql)"; done
echo
for n in $counts; do
	rm -rf "$work/traces"
	python3 "$top/bench/fleet/synth.py" "$work/traces" "$n" "$@"
	fleet start --port $((21000 + $$ % 1000 * 4)) >/dev/null
	t0=$(date +%s.%N)
	fleet load "$work/traces" >"$work/load.out" 2>&1 || { cat "$work/load.out" >&2; exit 1; }
	t1=$(date +%s.%N)
	mb=$(du -cb "$work"/traces/* | tail -n 1 | awk '{ print $1 / 1e6 }')
	rows=$(fleet query --format TabSeparated "SELECT sum(rows) FROM system.parts WHERE active AND database = 'default'")
	rows2=$(clickhouse-client --port $((21000 + $$ % 1000 * 4 + 3)) --query "SELECT sum(rows) FROM system.parts WHERE active AND database = 'default'")
	printf '| %d | %.1f | %d | %.1f | %.1f | %.0f |' "$n" "$mb" "$((rows + rows2))" \
	    "$(echo "$t1 $t0" | awk '{ print $1 - $2 }')" \
	    "$(echo "$mb $t1 $t0" | awk '{ print $1 / ($2 - $3) }')" \
	    "$(echo "$((rows + rows2)) $t1 $t0" | awk '{ print $1 / ($2 - $3) }')"
	for q in "$top"/tools/fleet_queries/*.sql; do
		for i in 1 2 3; do
			s=$(date +%s%N)
			fleet query "$q" >/dev/null
			e=$(date +%s%N)
			echo $(( (e - s) / 1000000 ))
		done | sort -n | sed -n 2p | tr '\n' ' ' | awk '{ printf " %d |", $1 }'
	done
	echo
	fleet stop >/dev/null
done
