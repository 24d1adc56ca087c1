#!/bin/sh
# Generates TrackEvent and ftrace traces at three sizes and loads each in
# its own process: MB/s, peak RSS and RSS per MB of trace (linear growth
# shows as a flat rss_per_file_mb), query latencies.
#   bench/trace_processor/run.sh [BUILDDIR] [SIZES_MB]
set -eu
build=${1:-.}
sizes=${2:-"32 64 128"}
tmp=${TMPDIR:-/tmp}/tp-bench.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
for kind in trackevent ftrace; do
	for mb in $sizes; do
		"$build/bench/trace_processor/tp_gen_trace" "$kind" "$mb" \
		    "$tmp/$kind.pftrace"
		printf '%-10s ' "$kind"
		"$build/bench/trace_processor/tp_bench_load" "$tmp/$kind.pftrace"
		rm -f "$tmp/$kind.pftrace"
	done
done
