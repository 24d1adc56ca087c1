#!/bin/sh
# tools/demo end to end in its short mode, on the binaries of this build:
# the report must name the example app's slices and real processes, and
# the demo must leave tracefs as it found it. Needs root and tracefs (77
# otherwise: ftrace is the heart of the demo).
set -u
[ "$(id -u)" -eq 0 ] || { echo "SKIP: the demo needs root for ftrace"; exit 77; }
tfs=/sys/kernel/tracing
[ -e "$tfs/tracing_on" ] || mount -t tracefs nodev "$tfs" 2>/dev/null
[ -e "$tfs/tracing_on" ] || { echo "SKIP: no tracefs at $tfs"; exit 77; }
s=${top_srcdir:?}
b=${top_builddir:?}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# One tracefs for the whole machine: the suites that trace take turns
# through this lock (the kernel suites in C take the same file), else a
# parallel make check sees another suite's events in the before/after.
exec 9>>/tmp/faro-tracefs-tests.lock
flock 9 || { echo "FAIL: cannot take the tracefs test lock"; exit 1; }

before=$(cat "$tfs/tracing_on" "$tfs/buffer_size_kb" "$tfs/current_tracer" "$tfs/set_event" 2>&1)
if ! "$s/tools/demo" --no-build --build-dir "$b" --seconds 3 --out "$out/t.pftrace" >"$out/report" 2>&1; then
	echo "FAIL: tools/demo failed:"; cat "$out/report"; exit 1
fi
cat "$out/report"
after=$(cat "$tfs/tracing_on" "$tfs/buffer_size_kb" "$tfs/current_tracer" "$tfs/set_event" 2>&1)

fail=0
check() { grep -q -- "$1" "$out/report" || { echo "FAIL: report lacks $2"; fail=1; }; }
check "Busiest processes by CPU time" "the CPU section"
check "faro_example" "the example app as a process"
check "process_item > " "the example app's nested slices"
check "gzip" "the real work (gzip)"
check "Scheduling latency" "the latency section"
check "Disk request latency" "the I/O latency section"
check "Trace file: $out/t.pftrace" "where the trace is"
[ -s "$out/t.pftrace" ] || { echo "FAIL: no trace file"; fail=1; }
[ "$before" = "$after" ] || { echo "FAIL: tracefs changed by the demo"; fail=1; }
[ -z "$(ls -d /tmp/faro-demo.* 2>/dev/null | while read -r d; do [ -S "$d/producer.sock" ] && echo "$d"; done)" ] ||
	{ echo "FAIL: a demo socket was left behind"; fail=1; }
exit $fail
