#!/bin/sh
# Makes the traces vs_upstream.sh measures, in OUTDIR (never in the tree):
#   ftrace.pftrace      a system trace recorded with faro on this machine
#                       under load: sched, irq, block, power, trace_marker
#                       slices, process and system stats (about 130 MB)
#   trackevent.pftrace  upstream's Perfetto SDK apps (sdk_app.cc) writing
#                       TrackEvents into our traced, recorded by faro
#                       (about 2.4M events)
#   gen-NNN.pftrace     synthetic ftrace traces of tp_gen_trace, for growth
#
#   make_traces.sh OUTDIR BUILD [WHAT...]
#
# BUILD is a configured build dir of faro (traced, traced_probes, faro; the
# generator is made there if missing). WHAT is any of ftrace, trackevent,
# gen (default: all). Needs root for ftrace. Environment:
#   FTRACE_SECONDS  recording time of ftrace.pftrace (60)
#   SDK_DIR         upstream SDK amalgamation, perfetto.h and perfetto.o
#                   built from it (/tmp/wt15a_sdk)
#   SDK_PROCS       app processes (8), two threads each
#   SDK_FRAMES      frames per thread (16500, ~9 TrackEvents a frame)
#   GEN_SIZES       sizes in MB of the synthetic traces ("256 512 1024")
#   KEEP_LOGS       set: keep the daemons' and the apps' logs
set -eu
[ $# -ge 2 ] || { sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 1; }
out=$(mkdir -p "$1" && cd "$1" && pwd)
build=$(cd "$2" && pwd)
shift 2
what=${*:-ftrace trackevent gen}
here=$(cd "$(dirname "$0")" && pwd)
seconds=${FTRACE_SECONDS:-60}
sdk=${SDK_DIR:-/tmp/wt15a_sdk}
procs=${SDK_PROCS:-8}
frames=${SDK_FRAMES:-16500}
sizes=${GEN_SIZES:-"256 512 1024"}
traced=$build/daemons/traced/traced
probes=$build/daemons/traced_probes/traced_probes
faro=$build/faro
tp=$build/daemons/trace_processor/trace_processor

work=$(mktemp -d /tmp/tpbench-rec.XXXXXX)
chmod 755 "$work"
export PERFETTO_PRODUCER_SOCK_NAME="$work/producer.sock"
export PERFETTO_CONSUMER_SOCK_NAME="$work/consumer.sock"
pids=""	# load and apps
daemons=""	# traced, traced_probes
stop_daemons() {
	for p in $pids $daemons; do kill "$p" 2>/dev/null || true; done
	for p in $pids $daemons; do wait "$p" 2>/dev/null || true; done
	pids="" daemons=""
	# traced_probes restores tracefs when it stops; this covers a crash.
	[ ! -d "$work/probes" ] ||
		"$probes" --cleanup-after-crash --run-dir "$work/probes" >/dev/null 2>&1 || true
	rm -rf "$work/probes" "$work/producer.sock" "$work/consumer.sock"
}
cleanup() {
	trap - EXIT INT TERM
	stop_daemons
	if [ -n "${KEEP_LOGS:-}" ]; then
		rm -rf "$work/scratch" "$work/sdk_app"
		echo "logs kept in $work" >&2
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

wait_for() {
	i=0
	until "$@" >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 100 ] || return 1
		sleep 0.1
	done
}
registered() { "$faro" --query 2>/dev/null | grep -q "$1"; }

start_traced() {
	"$traced" >"$work/traced.log" 2>&1 &
	daemons="$!"
	wait_for test -S "$PERFETTO_CONSUMER_SOCK_NAME" ||
		{ cat "$work/traced.log" >&2; exit 1; }
}

# Prints what the trace holds and what was lost on the way.
summary() {
	printf '%s: %s bytes\n' "$1" "$(wc -c <"$1")"
	"$tp" -Q "select (select count(*) from slice) slices,
	    (select count(*) from sched) sched,
	    (select count(*) from counter) counters,
	    (select count(*) from ftrace_event) ftrace_events" "$1" 2>/dev/null |
	    sed 's/^/  /'
	"$tp" -Q "select name, idx, value from stats where severity in
	    ('data_loss', 'error') and value > 0 order by name" "$1" 2>/dev/null |
	    sed 's/^/  /'
}

record_ftrace() {
	[ "$(id -u)" -eq 0 ] || { echo "make_traces.sh: ftrace needs root" >&2; exit 1; }
	start_traced
	mkdir -p "$work/probes"
	"$probes" --run-dir "$work/probes" >"$work/probes.log" 2>&1 &
	daemons="$! $daemons"
	wait_for registered linux.ftrace || { cat "$work/probes.log" >&2; exit 1; }
	cat >"$work/ftrace.pbtxt" <<EOF
duration_ms: $((seconds * 1000))
write_into_file: true
file_write_period_ms: 1000
flush_period_ms: 5000
buffers { size_kb: 131072 fill_policy: RING_BUFFER }
buffers { size_kb: 16384 fill_policy: RING_BUFFER }
data_sources {
  config {
    name: "linux.ftrace"
    target_buffer: 0
    ftrace_config {
      ftrace_events: "sched/sched_switch"
      ftrace_events: "sched/sched_waking"
      ftrace_events: "sched/sched_wakeup"
      ftrace_events: "sched/sched_wakeup_new"
      ftrace_events: "sched/sched_process_fork"
      ftrace_events: "sched/sched_process_exec"
      ftrace_events: "sched/sched_process_exit"
      ftrace_events: "sched/sched_process_free"
      ftrace_events: "task/task_newtask"
      ftrace_events: "task/task_rename"
      ftrace_events: "irq/irq_handler_entry"
      ftrace_events: "irq/irq_handler_exit"
      ftrace_events: "irq/softirq_entry"
      ftrace_events: "irq/softirq_exit"
      ftrace_events: "irq/softirq_raise"
      ftrace_events: "block/block_rq_insert"
      ftrace_events: "block/block_rq_issue"
      ftrace_events: "block/block_rq_complete"
      ftrace_events: "block/block_bio_queue"
      ftrace_events: "power/cpu_frequency"
      ftrace_events: "power/cpu_idle"
      ftrace_events: "power/suspend_resume"
      ftrace_events: "ftrace/print"
      buffer_size_kb: 16384
      drain_period_ms: 250
    }
  }
}
data_sources {
  config {
    name: "linux.process_stats"
    target_buffer: 1
    process_stats_config {
      scan_all_processes_on_start: true
      record_thread_names: true
      proc_stats_poll_ms: 1000
    }
  }
}
data_sources {
  config {
    name: "linux.sys_stats"
    target_buffer: 1
    sys_stats_config {
      meminfo_period_ms: 250
      vmstat_period_ms: 250
      stat_period_ms: 250
      stat_counters: [STAT_CPU_TIMES, STAT_IRQ_COUNTS, STAT_SOFTIRQ_COUNTS, STAT_FORK_COUNT]
    }
  }
}
data_sources { config { name: "linux.system_info" target_buffer: 1 } }
EOF
	"$faro" --txt -c "$work/ftrace.pbtxt" -o "$out/ftrace.pftrace" \
	    >"$work/faro.log" 2>&1 &
	fpid=$!
	sleep 1
	# The load: compress and write a file with fsync (block, irq), short
	# processes (fork, exec, exit, process stats), a ping-pong and nested
	# trace_marker slices (sys_load.py), all competing for both cores.
	mkdir -p "$work/scratch"
	end=$(($(date +%s) + seconds - 2))
	(
		while [ "$(date +%s)" -lt "$end" ]; do
			head -c 16M /dev/urandom >"$work/scratch/data"
			gzip -1 -c "$work/scratch/data" >"$work/scratch/data.gz"
			dd if="$work/scratch/data.gz" of="$work/scratch/copy" bs=64k \
			    oflag=direct conv=fsync 2>/dev/null
			sha256sum "$work/scratch/copy" >/dev/null
		done
	) &
	pids="$! $pids"
	(
		while [ "$(date +%s)" -lt "$end" ]; do
			for i in 1 2 3 4 5 6 7 8 9 10; do /bin/true; done
			sleep 0.01
		done
	) &
	pids="$! $pids"
	python3 "$here/sys_load.py" pingpong "$end" &
	pids="$! $pids"
	python3 "$here/sys_load.py" marker "$end" &
	pids="$! $pids"
	wait "$fpid" || { cat "$work/faro.log" >&2; exit 1; }
	for p in $pids; do wait "$p" || true; done
	pids=""
	stop_daemons
	rm -rf "$work/scratch"
	summary "$out/ftrace.pftrace"
}

record_trackevent() {
	[ -f "$sdk/perfetto.o" ] ||
		{ echo "make_traces.sh: no $sdk/perfetto.o (SDK_DIR)" >&2; exit 1; }
	g++ -O2 -std=c++17 -I"$sdk" "$here/sdk_app.cc" "$sdk/perfetto.o" \
	    -lpthread -o "$work/sdk_app"
	start_traced
	cat >"$work/te.pbtxt" <<EOF
duration_ms: 30000
write_into_file: true
file_write_period_ms: 500
flush_period_ms: 5000
buffers { size_kb: 131072 fill_policy: RING_BUFFER }
data_sources { config { name: "track_event" track_event_config { enabled_categories: "app" } } }
EOF
	apps=""
	for p in $(seq 1 "$procs"); do
		"$work/sdk_app" "$frames" 2 2>"$work/app$p.log" &
		apps="$apps $!"
	done
	pids="$apps $pids"
	wait_for registered track_event
	"$faro" --txt -c "$work/te.pbtxt" -o "$out/trackevent.pftrace" \
	    >"$work/faro.log" 2>&1 || { cat "$work/faro.log" >&2; exit 1; }
	# shellcheck disable=SC2086
	wait $apps
	pids=""
	stop_daemons
	summary "$out/trackevent.pftrace"
}

gen_traces() {
	gen=$build/bench/trace_processor/tp_gen_trace
	[ -x "$gen" ] || make -C "$build" bench/trace_processor/tp_gen_trace >/dev/null
	for mb in $sizes; do
		"$gen" ftrace "$mb" "$out/gen-$mb.pftrace"
		printf '%s: %s bytes\n' "$out/gen-$mb.pftrace" \
		    "$(wc -c <"$out/gen-$mb.pftrace")"
	done
}

for w in $what; do
	case "$w" in
	ftrace) record_ftrace ;;
	trackevent) record_trackevent ;;
	gen) gen_traces ;;
	*) echo "make_traces.sh: unknown trace kind $w" >&2; exit 1 ;;
	esac
done
