#!/usr/bin/env python3
"""Writes N small system traces, one per made-up host, as text protos.

Each trace k (host NAME-kk, kernel A for even k and B for odd k) has its
own trace_uuid, a process tree with pids shifted by k, scheduling on two
CPUs where every wakeup waits a random 1-500 us before running (so the
Runnable times are known), block I/O on two devices, app slices on the
app's main thread, and buffer stats with data loss on two hosts in three.
The randomness is seeded by k: the same N gives the same traces.

  gen_traces.py OUTDIR N [EVENTS]   (EVENTS: wakeups per CPU, default 40)
"""
import os
import random
import sys

KERNELS = ("6.1.0-fleet-a", "6.6.0-fleet-b")
DEVICES = ((8 << 20) | 0, (259 << 20) | 1)      # sda, nvme0n1p1
SLICES = ("frame", "query", "compress")


def ftrace_bundle(cpu, events):
    body = "\n".join("    event { timestamp: %d pid: %d %s }" % e
                     for e in sorted(events))
    return ("packet {\n  trusted_packet_sequence_id: 2\n  ftrace_events {\n"
            "    cpu: %d\n%s\n  }\n}\n" % (cpu, body))


def trace(k, nevents):
    rnd = random.Random(k)
    base = 1000 + 37 * k
    app, db = base, base + 1
    # (tid, pid, comm)
    threads = [(app, app, "app"), (app + 2, app, "app-worker"),
               (db, db, "postgres"), (db + 3, db, "pg-writer")]
    out = []
    out.append("packet { trace_uuid { msb: %d lsb: 77 } }\n" % (1000 + k))
    out.append('packet { system_info { utsname { sysname: "Linux" '
               'version: "#1 SMP" release: "%s" machine: "x86_64" } } }\n'
               % KERNELS[k % 2])
    procs = ('    processes { pid: 1 ppid: 0 cmdline: "init" }\n'
             '    processes { pid: %d ppid: 1 cmdline: "/usr/bin/app" }\n'
             '    processes { pid: %d ppid: 1 cmdline: "postgres" }\n'
             % (app, db))
    thr = "".join('    threads { tid: %d tgid: %d name: "%s" }\n' % t
                  for t in threads)
    out.append("packet {\n  timestamp: 1000\n  process_tree {\n%s%s  }\n}\n"
               % (procs, thr))
    # Scheduling: each CPU runs two of the threads, woken in turn.
    for cpu in (0, 1):
        mine = threads[cpu * 2:cpu * 2 + 2]
        t = 1000000 + cpu * 777
        ev = []
        for i in range(nevents):
            tid, _, comm = mine[i % 2]
            lat = rnd.randint(1, 500) * 1000
            run = rnd.randint(10, 2000) * 1000
            ev.append((t, 0, 'sched_waking { comm: "%s" pid: %d prio: 120 '
                       'success: 1 target_cpu: %d }' % (comm, tid, cpu)))
            t += lat
            ev.append((t, 0, 'sched_switch { prev_comm: "swapper/%d" '
                       'prev_pid: 0 prev_prio: 120 prev_state: 0 '
                       'next_comm: "%s" next_pid: %d next_prio: 120 }'
                       % (cpu, comm, tid)))
            t += run
            ev.append((t, tid, 'sched_switch { prev_comm: "%s" prev_pid: %d '
                       'prev_prio: 120 prev_state: 1 next_comm: "swapper/%d" '
                       'next_pid: 0 next_prio: 120 }' % (comm, tid, cpu)))
            t += rnd.randint(1, 300) * 1000
        out.append(ftrace_bundle(cpu, ev))
    # Block I/O: requests one after another on each device.
    ev = []
    for d, dev in enumerate(DEVICES):
        t = 2000000 + d * 333
        for i in range(nevents // 2):
            dur = rnd.randint(50, 20000) * 1000
            sector = 4096 * (i + 1) + d
            ev.append((t, app, 'block_io_start { dev: %d sector: %d '
                       'nr_sector: 8 bytes: 4096 rwbs: "R" comm: "app" }'
                       % (dev, sector)))
            ev.append((t + dur, 0, 'block_io_done { dev: %d sector: %d '
                       'nr_sector: 8 bytes: 4096 rwbs: "R" comm: "app" }'
                       % (dev, sector)))
            t += dur + rnd.randint(1, 100) * 1000
    out.append(ftrace_bundle(2, ev))
    # The app's slices, on its main thread's track.
    out.append("packet {\n  trusted_packet_sequence_id: 7\n"
               "  sequence_flags: 1\n  timestamp: 1000\n"
               "  track_descriptor { uuid: 42 thread { pid: %d tid: %d "
               'thread_name: "app" } }\n}\n' % (app, app))
    t = 1500000
    for i in range(nevents):
        dur = rnd.randint(100, 50000) * 1000
        name = SLICES[i % len(SLICES)]
        for ts, kind in ((t, "TYPE_SLICE_BEGIN"), (t + dur, "TYPE_SLICE_END")):
            out.append("packet {\n  trusted_packet_sequence_id: 7\n"
                       "  timestamp: %d\n  track_event { type: %s "
                       'track_uuid: 42 categories: "app"%s }\n}\n'
                       % (ts, kind, ' name: "%s"' % name
                          if kind == "TYPE_SLICE_BEGIN" else ""))
        t += dur + rnd.randint(1, 1000) * 1000
    out.append("packet {\n  trace_stats {\n    buffer_stats {\n"
               "      buffer_size: 1048576\n      patches_failed: %d\n"
               "      trace_writer_packet_loss: %d\n    }\n  }\n}\n"
               % (k % 3, 2 * (k % 3)))
    return "".join(out)


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    outdir, n = sys.argv[1], int(sys.argv[2])
    nevents = int(sys.argv[3]) if len(sys.argv) == 4 else 40
    os.makedirs(outdir, exist_ok=True)
    for k in range(n):
        with open(os.path.join(outdir, "host%02d.textproto" % k), "w") as f:
            f.write(trace(k, nevents))


if __name__ == "__main__":
    main()
