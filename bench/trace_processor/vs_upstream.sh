#!/bin/sh
# Our trace_processor against upstream's trace_processor_shell, trace by
# trace:
#   load   time and peak RSS of '-q' with a trivial query (/usr/bin/time),
#          RUNS runs interleaved ours, upstream, ours, ...: min / median /
#          max and the ratios of the medians;
#   rows   row counts of ten tables in both, and which differ;
#   query  ten typical queries through each binary's HTTP RPC server
#          (-D --http-port, POST /query), QUERY_RUNS runs interleaved, the
#          median of each and whether both gave the same rows
#          (vs_upstream.py; a differing result is kept in mismatch.*.txt).
# Prints a plain table per trace and the same in markdown.
#
#   vs_upstream.sh OURS UPSTREAM TRACE...
#
# OURS is a release build's trace_processor (a plain configure: -O2 -g
# and link-time optimisation, no --enable-debug/--enable-asan).
# Environment:
#   RESULTS     directory for the raw figures (default: a new /tmp/tpbench-vs.*)
#   RUNS        load runs per binary (3)
#   QUERY_RUNS  runs per query per binary (5); 0 skips the queries
# Both servers hold the trace at once during the queries: mind the memory
# on large traces. Figures taken while the machine does other work are
# noisy: run it on an idle machine.
set -eu
[ $# -ge 3 ] || { sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 1; }
ours=$1
upstream=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
runs=${RUNS:-3}
qruns=${QUERY_RUNS:-5}
results=${RESULTS:-$(mktemp -d /tmp/tpbench-vs.XXXXXX)}
mkdir -p "$results"
for b in "$ours" "$upstream"; do
	[ -x "$b" ] || { echo "vs_upstream.sh: $b is not executable" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "vs_upstream.sh: needs /usr/bin/time (GNU time)" >&2; exit 1; }

echo "SELECT 1;" >"$results/trivial.sql"
{
	sep="SELECT"
	for t in slice sched thread_state counter args thread process track \
	    flow ftrace_event; do
		printf "%s '%s' AS tbl, COUNT(*) AS n FROM %s\n" "$sep" "$t" "$t"
		sep="UNION ALL SELECT"
	done
	echo ";"
} >"$results/counts.sql"

bin_of() { if [ "$1" = ours ]; then echo "$ours"; else echo "$upstream"; fi; }

dirs=""
n=0
for trace in "$@"; do
	n=$((n + 1))
	d=$results/$n-$(basename "$trace" | sed 's/\.[^.]*$//')
	mkdir -p "$d"
	dirs="$dirs $d"
	(cd "$(dirname "$trace")" && echo "$(pwd)/$(basename "$trace")") >"$d/trace"
	: >"$d/load.txt"
	echo "$trace: load, $runs runs each" >&2
	r=0
	while [ $r -lt "$runs" ]; do
		r=$((r + 1))
		for b in ours upstream; do
			/usr/bin/time -f '%e %M' -o "$d/time.out" \
			    "$(bin_of $b)" -q "$results/trivial.sql" "$trace" \
			    >/dev/null 2>"$d/load.$b.err" ||
			    { echo "vs_upstream.sh: $b failed on $trace:" >&2;
			      tail -5 "$d/load.$b.err" >&2; exit 1; }
			echo "$b $(tail -1 "$d/time.out")" >>"$d/load.txt"
		done
	done
	echo "$trace: row counts" >&2
	for b in ours upstream; do
		"$(bin_of $b)" -q "$results/counts.sql" "$trace" \
		    >"$d/counts.$b.csv" 2>"$d/counts.$b.err" ||
		    { echo "vs_upstream.sh: $b failed counting rows of $trace" >&2;
		      tail -5 "$d/counts.$b.err" >&2; }
	done
	if [ "$qruns" -gt 0 ]; then
		echo "$trace: queries, $qruns runs each" >&2
		python3 "$here/vs_upstream.py" queries "$ours" "$upstream" \
		    "$trace" "$d" --runs "$qruns"
	fi
done
# shellcheck disable=SC2086
python3 "$here/vs_upstream.py" report $dirs | tee "$results/report.txt"
echo "raw figures and mismatching rows: $results" >&2
