#!/bin/sh
# trace_processor --live's refresh, the way live.c drives the engine, on a
# synthetic ftrace stream (sched, wakeups, trace_marker slices):
#  1. CPU per refresh with a window of ~30 MB (10 MB/s, 3 s), incremental
#     against re-import (what live.c did before);
#  2. RSS over a long run: 600 ticks (10 minutes of a producer writing
#     1 MB/s) with a 60 s window, a refresh every 10 s.
#   bench/trace_processor/live.sh [BUILDDIR]
set -eu
build=${1:-.}
gen=$build/bench/trace_processor/tp_gen_trace
live=$build/bench/trace_processor/tp_bench_live
for mode in reimport incremental; do
	"$gen" ftrace 200 /dev/stdout | "$live" -m $mode -r 10 -w 3 -n 15 \
	    -f 1 -p 5 -
done
"$gen" ftrace 700 /dev/stdout | "$live" -m incremental -r 1 -w 60 -n 600 \
    -f 10 -p 60 -
