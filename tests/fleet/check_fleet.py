#!/usr/bin/env python3
"""The fleet end to end: 20 generated traces loaded by tools/fleet into two
ClickHouse shards; each fleet query in tools/fleet_queries/ must give what
trace_processor says of each trace, combined here by hand. Also: a second
load skips every trace, both shards hold traces, and a trace left partly
loaded is refused until tools/fleet purge removes its rows.

Skipped (exit 77) where clickhouse-server or protoc is not installed.
"""
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

SRC = os.environ.get("top_srcdir",
                     os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("top_builddir", ".")
TP = os.path.join(BUILD, "daemons", "trace_processor", "trace_processor")
FLEET = os.path.join(SRC, "tools", "fleet")
QUERIES = os.path.join(SRC, "tools", "fleet_queries")
NTRACES = 20
failures = []


def run(*argv, **kw):
    return subprocess.run(argv, check=True, capture_output=True, text=True,
                          **kw).stdout


def check(what, got, want):
    if got != want:
        failures.append(what)
        print("FAIL: %s\n  got:  %r\n  want: %r" % (what, got, want))
    else:
        print("PASS: %s" % what)


def tp_rows(trace, sql):
    """trace_processor's CSV answer, as lists of strings."""
    out = run(TP, "-Q", sql, trace)
    return list(csv.reader(out.splitlines()))[1:]


def quantile_exact(values, level):
    """ClickHouse's quantileExact: the element at floor(level * n)."""
    s = sorted(values)
    return s[min(int(level * len(s)), len(s) - 1)]


def r1(ns):
    return "%g" % round(ns / 1000.0, 1)


def expected(traces):
    """Each fleet query's rows, from trace_processor on each trace."""
    lat, cpu, slices, disk, loss = {}, {}, [], {}, {}
    for host, path in traces:
        kernel = tp_rows(path, "select str_value from metadata "
                         "where name = 'system_release'")[0][0]
        uuid = tp_rows(path, "select str_value from metadata "
                       "where name = 'trace_uuid'")[0][0]
        for (dur,) in tp_rows(path, "select dur from thread_state where "
                              "state in ('R', 'R+') and dur >= 0"):
            lat.setdefault((host, kernel), []).append(int(dur))
        for name, dur in tp_rows(path, "select coalesce(p.name, t.name), "
                                 "s.dur from sched s join thread t using "
                                 "(utid) left join process p using (upid) "
                                 "where t.tid != 0 and s.dur > 0"):
            hosts, total = cpu.get(name, (set(), 0))
            hosts.add(host)
            cpu[name] = (hosts, total + int(dur))
        for proc, name, dur, ts in tp_rows(path, "select p.name, s.name, "
                                           "s.dur, s.ts from slice s join "
                                           "thread_track tt on tt.id = "
                                           "s.track_id join thread using "
                                           "(utid) join process p using "
                                           "(upid) where s.dur >= 0"):
            slices.append((host, proc, name, int(dur), int(ts), uuid))
        for dev, dur in tp_rows(path, "select extract_arg(t."
                                "dimension_arg_set_id, 'block_device'), "
                                "s.dur from slice s join track t on t.id = "
                                "s.track_id where t.type = 'block_io' and "
                                "s.name = 'block_io' and s.dur >= 0"):
            d = int(dev)
            disk.setdefault((host, "%d:%d" % (d >> 20, d & 0xfffff)),
                            []).append(int(dur))
        for name, value in tp_rows(path, "select name, value from stats "
                                   "where severity = 'data_loss' and "
                                   "value > 0"):
            loss[(host, name)] = loss.get((host, name), 0) + int(value)
    want = {}
    rows = []
    for (host, kernel), v in lat.items():
        rows.append([host, kernel, str(len(v))] +
                    [r1(quantile_exact(v, l)) for l in (0.5, 0.9, 0.99)] +
                    [r1(max(v))])
    rows.sort(key=lambda r: (-float(r[5]), r[0]))
    want["sched_latency"] = rows
    rows = sorted(([n, str(len(h)), "%g" % round(t / 1e9, 6)]
                   for n, (h, t) in cpu.items()),
                  key=lambda r: (-float(r[2]), r[0]))[:20]
    want["cpu_per_process"] = rows
    slices.sort(key=lambda s: (-s[3], s[0], s[4]))
    want["slowest_slices"] = [[h, p, n, "%g" % round(d / 1e6, 3), str(ts), u]
                              for h, p, n, d, ts, u in slices[:10]]
    want["disk_latency"] = [[h, d, str(len(v)), r1(quantile_exact(v, 0.5)),
                             r1(quantile_exact(v, 0.99)), r1(max(v))]
                            for (h, d), v in sorted(disk.items())]
    want["data_loss"] = [[h, n, str(v)] for (h, n), v in sorted(loss.items())]
    return want


def fleet(work, *argv):
    return run(FLEET, argv[0], "--dir", os.path.join(work, "fleet"),
               "--tp", TP, *argv[1:])


def fleet_query(work, sql):
    out = fleet(work, "query", "--format", "TabSeparated", sql)
    return [l.split("\t") for l in out.splitlines() if l]


def main():
    for prog in ("clickhouse-server", "clickhouse-client", "protoc"):
        if shutil.which(prog) is None:
            print("SKIP: %s is not installed (tools/deps installs it)" % prog)
            return 77
    work = tempfile.mkdtemp(prefix="check_fleet.")
    port = 20000 + (os.getpid() % 2000) * 4
    try:
        gen = os.path.join(work, "gen")
        run(sys.executable, os.path.join(SRC, "tests", "fleet",
                                         "gen_traces.py"), gen, str(NTRACES))
        traces_dir = os.path.join(work, "traces")
        os.makedirs(traces_dir)
        traces = []
        for name in sorted(os.listdir(gen)):
            host = name.split(".")[0]
            path = os.path.join(traces_dir, host + ".pftrace")
            with open(os.path.join(gen, name)) as src, \
                    open(path, "wb") as dst:
                subprocess.run(["protoc", "--encode=perfetto.protos.Trace",
                                "-I" + SRC,
                                "protos/perfetto/trace/trace.proto"],
                               stdin=src, stdout=dst, check=True)
            traces.append((host, path))
        fleet(work, "start", "--port", str(port))
        try:
            out = subprocess.run([FLEET, "load", "--dir",
                                  os.path.join(work, "fleet"), "--tp", TP,
                                  traces_dir], capture_output=True,
                                 text=True)
            check("first load", out.stdout.split(";")[0],
                  "tools/fleet: %d loaded, 0 skipped (already loaded), "
                  "0 failed" % NTRACES)
            out = fleet(work, "load", traces_dir)
            check("second load skips all", out.split(";")[0],
                  "tools/fleet: 0 loaded, %d skipped (already loaded), "
                  "0 failed" % NTRACES)
            per_shard = [int(run("clickhouse-client", "--port",
                                 str(port + 2 * i + 1), "--query",
                                 "SELECT count() FROM traces_local"))
                         for i in (0, 1)]
            check("traces spread over both shards",
                  (sum(per_shard), min(per_shard) > 0), (NTRACES, True))
            want = expected(traces)
            for q in sorted(want):
                got = fleet_query(work, os.path.join(QUERIES, q + ".sql"))
                check("fleet query %s (%d rows)" % (q, len(want[q])),
                      got, want[q])
            check_partial(work, traces_dir, traces[0][1])
            check_escapes(work, port)
        finally:
            fleet(work, "stop")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


def check_escapes(work, port):
    """Names with tabs, newlines, backslashes, quotes, a NUL and UTF-8
    reach ClickHouse byte for byte (TabSeparated escaping)."""
    names = ["tab\there", "line\nbreak", "back\\slash", "quote'\"s",
             "nul\u0000end", "caf\u00e9 \u2713", "\\N", ""]
    path = os.path.join(work, "escapes.json")
    with open(path, "w") as f:
        json.dump([{"ph": "X", "ts": i + 1, "dur": 1, "pid": 7, "tid": 7,
                    "name": n} for i, n in enumerate(names)], f)
    fleet(work, "load", path)
    uuid = tp_rows(path, "select str_value from metadata "
                   "where name = 'trace_uuid'")[0][0]
    want = [r[0] for r in tp_rows(path, "select hex(name) from slice "
                                  "order by ts")]
    got = run("clickhouse-client", "--port", str(port + 1), "--query",
              "SELECT hex(ifNull(name, '')) FROM slice WHERE trace_id = "
              "'%s' ORDER BY ts" % uuid).split("\n")[:-1]
    check("awkward names arrive byte for byte (%d)" % len(want),
          [g.upper() for g in got], want)


def check_partial(work, traces_dir, path):
    """A trace whose load stopped midway is refused until purged."""
    uuid = tp_rows(path, "select str_value from metadata "
                   "where name = 'trace_uuid'")[0][0]
    fleet(work, "purge", uuid)
    wait_rows(work, "traces", uuid, 0)
    wait_rows(work, "metadata", uuid, 0)
    # What a load cut short leaves: metadata rows, no traces row.
    fleet(work, "query", "INSERT INTO metadata (trace_id, name, key_type) "
          "VALUES ('%s', 'trace_uuid', 'single')" % uuid)
    out = subprocess.run([FLEET, "load", "--dir", os.path.join(work, "fleet"),
                          "--tp", TP, path], capture_output=True, text=True)
    check("a partly loaded trace is refused",
          (out.returncode, "was partly loaded before" in out.stderr),
          (1, True))
    fleet(work, "purge", uuid)
    wait_rows(work, "metadata", uuid, 0)
    out = fleet(work, "load", path)
    check("after purge it loads", out.split(";")[0],
          "tools/fleet: 1 loaded, 0 skipped (already loaded), 0 failed")


def wait_rows(work, table, uuid, n):
    """Mutations (ALTER ... DELETE) run in the background: wait for them."""
    for _ in range(300):
        got = fleet_query(work, "SELECT count() FROM %s WHERE trace_id = "
                          "'%s'" % (table, uuid))
        if got == [[str(n)]]:
            return
        time.sleep(0.1)
    check("%s rows of %s after purge" % (table, uuid), got, [[str(n)]])


if __name__ == "__main__":
    sys.exit(main())
