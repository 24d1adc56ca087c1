#!/bin/sh
# Records the golden ring-buffer pages used by check_ftrace_parse: run as
# root on a test machine, from this directory. Saves, and afterwards
# restores, every tracefs setting it changes.
set -eu
T=${TRACEFS:-/sys/kernel/tracing}
OUT=$(pwd)
EVENTS="sched/sched_switch sched/sched_waking sched/sched_process_exec sched/sched_process_exit signal/signal_generate"
on=$(cat $T/tracing_on); kb=$(cut -d' ' -f1 $T/buffer_size_kb)
clock=$(sed 's/.*\[\(.*\)\].*/\1/' $T/trace_clock)
restore() {
	echo 0 > $T/tracing_on
	for e in $EVENTS; do echo 0 > $T/events/$e/enable; done
	echo $clock > $T/trace_clock; echo $kb > $T/buffer_size_kb
	echo $on > $T/tracing_on
}
trap restore EXIT
echo 0 > $T/tracing_on; echo boot > $T/trace_clock; echo 64 > $T/buffer_size_kb
echo > $T/trace
for e in $EVENTS; do echo 1 > $T/events/$e/enable; done
echo 1 > $T/tracing_on
taskset -c 0 sh -c "echo \$\$ > $OUT/marker.pid; echo faro-golden-marker > $T/trace_marker; /bin/true; kill -0 \$\$"
sleep 0.05
echo 0 > $T/tracing_on
dd if=$T/per_cpu/cpu0/trace_pipe_raw of=$OUT/cpu0.raw bs=4096 iflag=nonblock 2>/dev/null || true
cp $T/events/header_page $OUT/header_page
for e in $EVENTS ftrace/print; do cp $T/events/$e/format $OUT/$(echo $e | tr / _).format; done
