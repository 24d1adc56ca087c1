#!/bin/sh
# Kernel symbols end to end: traced and traced_probes of this build record
# workqueue events with symbolize_ksyms on private sockets, trace_processor
# names the workqueue slices, and the names must be what the kernel itself
# printed. A tracefs instance records workqueue_execute_start as text
# (the kernel names the function with %ps) from before the session starts
# to after it ends: on every cpu, our sequence of names must appear, in
# order and contiguous, within the kernel's. A wrong iid, a table from the
# wrong sequence or generation would show as a different name.
# Needs root and tracefs (77 otherwise). KEEP=1 keeps the work directory.
set -u
[ "$(id -u)" -eq 0 ] || { echo "SKIP: ftrace needs root"; exit 77; }
tfs=/sys/kernel/tracing
[ -e "$tfs/tracing_on" ] || mount -t tracefs nodev "$tfs" 2>/dev/null
[ -e "$tfs/tracing_on" ] || { echo "SKIP: no tracefs at $tfs"; exit 77; }
[ -d "$tfs/events/workqueue/workqueue_execute_start" ] ||
	{ echo "SKIP: no workqueue events"; exit 77; }
# With kptr_restrict, kallsyms shows zeros and nothing can be symbolized.
case $(head -n 1 /proc/kallsyms) in
0000000000000000*|00000000\ *) echo "SKIP: kallsyms addresses hidden"; exit 77 ;;
esac
b=${top_builddir:?}
traced=$b/daemons/traced/traced
probes=$b/daemons/traced_probes/traced_probes
faro=$b/faro
tp=$b/daemons/trace_processor/trace_processor
for x in "$traced" "$probes" "$faro" "$tp"; do
	[ -x "$x" ] || { echo "FAIL: $x is not built"; exit 1; }
done

exec 9>>/tmp/faro-tracefs-tests.lock
flock 9 || { echo "FAIL: cannot take the tracefs test lock"; exit 1; }

work=$(mktemp -d /tmp/tp-ksyms.XXXXXX)
chmod 755 "$work"
inst=$tfs/instances/faro-ksyms-$$
export PERFETTO_PRODUCER_SOCK_NAME="$work/producer.sock"
export PERFETTO_CONSUMER_SOCK_NAME="$work/consumer.sock"
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	for p in $pids; do wait "$p" 2>/dev/null || true; done
	"$probes" --cleanup-after-crash --run-dir "$work/probes" >/dev/null 2>&1
	[ -d "$inst" ] && rmdir "$inst"
	[ -n "${KEEP:-}" ] && echo "kept $work" || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
wait_for() {
	i=0
	until "$@" >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 100 ] || return 1
		sleep 0.1
	done
}
registered() { "$faro" --query 2>/dev/null | grep -q linux.ftrace; }

"$traced" >"$work/traced.log" 2>&1 &
pids="$! $pids"
wait_for test -S "$PERFETTO_CONSUMER_SOCK_NAME" ||
	{ echo "FAIL: traced did not start"; cat "$work/traced.log"; exit 1; }
mkdir -p "$work/probes"
"$probes" --run-dir "$work/probes" >"$work/probes.log" 2>&1 &
pids="$! $pids"
wait_for registered ||
	{ echo "FAIL: no linux.ftrace"; cat "$work/probes.log"; exit 1; }

mkdir "$inst" || { echo "FAIL: cannot create $inst"; exit 1; }
echo 4096 >"$inst/buffer_size_kb"
echo 1 >"$inst/events/workqueue/workqueue_execute_start/enable"
echo 1 >"$inst/tracing_on"

cat >"$work/config.pbtxt" <<EOF
duration_ms: 3000
buffers { size_kb: 16384 fill_policy: DISCARD }
data_sources {
  config {
    name: "linux.ftrace"
    ftrace_config {
      ftrace_events: "workqueue/workqueue_execute_start"
      ftrace_events: "workqueue/workqueue_execute_end"
      symbolize_ksyms: true
      buffer_size_kb: 2048
      drain_period_ms: 250
    }
  }
}
EOF
# Work for the workqueues: writeback and block I/O completions.
( i=0; while [ $i -lt 30 ]; do
	echo "$i" >>"$work/load"; sync; sleep 0.1; i=$((i + 1)); done ) &
load=$!
if ! "$faro" --txt -c "$work/config.pbtxt" -o "$work/t.pftrace" \
    >"$work/faro.log" 2>&1; then
	echo "FAIL: faro failed"; cat "$work/faro.log" "$work/probes.log"
	exit 1
fi
wait "$load"
echo 0 >"$inst/tracing_on"
# The kernel's names, one "cpu name" line per event.
sed -n 's/.*\[\([0-9]*\)\].* workqueue_execute_start: .* function \([^ ]*\).*/\1 \2/p' \
    "$inst/trace" >"$work/kernel.txt"
lost=$(grep -c "LOST" "$inst/trace")

if ! "$tp" -Q "SELECT r.cpu, EXTRACT_ARG(r.arg_set_id, 'function') AS f,
    s.name, s.dur FROM raw r JOIN slice s ON s.ts = r.ts
    AND s.category = 'workqueue' AND s.track_id = (SELECT id
    FROM thread_track WHERE utid = r.utid AND name IS NULL)
    WHERE r.name = 'workqueue_execute_start' ORDER BY r.ts" \
    "$work/t.pftrace" >"$work/ours.csv" 2>"$work/tp.err"; then
	echo "FAIL: trace_processor failed"; cat "$work/tp.err"; exit 1
fi
"$tp" -Q "SELECT name, COUNT(*) AS n FROM slice WHERE category =
    'workqueue' GROUP BY name ORDER BY n DESC LIMIT 10" "$work/t.pftrace" \
    2>/dev/null

loss=$("$tp" -Q "SELECT COALESCE(SUM(value), 0) FROM stats WHERE name IN
    ('ftrace_cpu_overrun_end', 'ftrace_cpu_dropped_events_end',
    'ftrace_cpu_has_data_loss')" "$work/t.pftrace" 2>/dev/null | tail -n 1)

fail=0
n=$(($(wc -l <"$work/ours.csv") - 1))
k=$(wc -l <"$work/kernel.txt")
echo "workqueue slices: $n; kernel instance events: $k, lost: $lost; our losses: $loss"
if [ "$n" -le 0 ]; then
	[ "$k" -gt 0 ] || { echo "SKIP: no workqueue activity"; exit 77; }
	echo "FAIL: the kernel ran $k work items, our trace has none"; exit 1
fi
# Every slice is named by a symbol, and the raw arg shows the same name.
bad=$(awk -F, 'NR > 1 && ($2 != $3 || $3 ~ /^"0x/ || $4 < 0)' "$work/ours.csv")
[ -z "$bad" ] || { echo "FAIL: unnamed, mismatched or open slices:";
	echo "$bad" | head; fail=1; }

# Per cpu, ours must be a contiguous run within the kernel's sequence.
if [ "$lost" -eq 0 ] && [ "$loss" = 0 ]; then
	awk -F, 'NR > 1 { gsub(/"/, "", $2); s[$1] = s[$1] "|" $2 }
	    END { for (c in s) print c, s[c] "|" }' "$work/ours.csv" \
	    | sort >"$work/ours.seq"
	awk '{ s[$1 + 0] = s[$1 + 0] "|" $2 } END { for (c in s)
	    print c, s[c] "|" }' "$work/kernel.txt" | sort >"$work/kernel.seq"
	while read -r cpu seq; do
		k=$(awk -v c="$cpu" '$1 == c { print $2 }' "$work/kernel.seq")
		case $k in
		*"$seq"*) ;;
		*) echo "FAIL: cpu $cpu: our names are not the kernel's:"
		   echo "  ours:   $(echo "$seq" | cut -c1-300)"
		   echo "  kernel: $(echo "$k" | cut -c1-300)"
		   fail=1 ;;
		esac
	done <"$work/ours.seq"
else
	echo "note: events were lost; sequence check skipped"
fi
exit $fail
