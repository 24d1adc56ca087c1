#!/usr/bin/env python3
"""Query latency and the tables of vs_upstream.sh.

    vs_upstream.py queries OURS UPSTREAM TRACE DIR [--runs N]
        starts both binaries as HTTP RPC servers on TRACE (-D --http-port),
        runs the ten queries below RUNS times each, interleaved, through
        POST /query, and writes DIR/queries.txt: per query the median
        milliseconds of each binary, the rows, and whether both gave the
        same rows.
    vs_upstream.py report DIR...
        prints the tables of the runs vs_upstream.sh left in each DIR
        (load.txt, counts.ours.csv, counts.upstream.csv, queries.txt):
        plain text per trace, then the same in markdown.

The protobufs (QueryArgs, QueryResult) are encoded and decoded by hand:
no protobuf module is needed.
"""
import csv
import http.client
import os
import statistics
import struct
import subprocess
import sys
import time

from http_load import free_port
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "fleet"))
import synth  # noqa: E402  (protobuf fields by hand)
from synth import put_varint, varint as read_varint  # noqa: E402

# The ten queries. A query of several statements gives the rows of its last
# one; the views are created once (IF NOT EXISTS) and the span join table
# is made again on each run, so each run does the same work. ORDER BY on
# every result so both binaries give rows in one order.
QUERIES = [
    ("slices_by_name",
     "SELECT name, COUNT(*) AS n, SUM(dur) AS total FROM slice "
     "WHERE name LIKE '%a%' GROUP BY name ORDER BY name"),
    ("thread_state_join",
     "SELECT t.name, s.state, COUNT(*) AS n, SUM(s.dur) AS total "
     "FROM thread_state s JOIN thread t USING (utid) "
     "GROUP BY t.name, s.state ORDER BY total DESC, t.name, s.state "
     "LIMIT 100"),
    ("sched_per_cpu",
     "SELECT cpu, COUNT(*) AS n, SUM(dur) AS total, MAX(dur) AS longest, "
     "COUNT(DISTINCT utid) AS threads FROM sched GROUP BY cpu ORDER BY cpu"),
    # Thread states during each thread's top-level slices: two per-thread
    # tables, partitioned by utid.
    ("span_join",
     "CREATE VIEW IF NOT EXISTS tpb_states AS "
     "SELECT ts, dur, utid, state FROM thread_state WHERE dur > 0; "
     "CREATE VIEW IF NOT EXISTS tpb_top AS "
     "SELECT s.ts, s.dur, t.utid, s.name FROM slice s "
     "JOIN thread_track t ON s.track_id = t.id WHERE s.depth = 0 "
     "AND s.dur > 0; "
     "DROP TABLE IF EXISTS tpb_sj; "
     "CREATE VIRTUAL TABLE tpb_sj USING "
     "SPAN_JOIN(tpb_states PARTITIONED utid, tpb_top PARTITIONED utid); "
     "SELECT name, state, COUNT(*) AS n, SUM(dur) AS total FROM tpb_sj "
     "GROUP BY name, state ORDER BY name, state"),
    ("ancestor_slice",
     "SELECT s.depth, COUNT(*) AS n, SUM(a.dur) AS total "
     "FROM slice s JOIN ancestor_slice(s.id) a WHERE s.depth > 0 "
     "GROUP BY s.depth ORDER BY s.depth"),
    ("descendant_slice",
     "SELECT s.name, COUNT(*) AS n, SUM(d.dur) AS total "
     "FROM slice s JOIN descendant_slice(s.id) d WHERE s.depth = 0 "
     "GROUP BY s.name ORDER BY s.name"),
    ("counter_per_track",
     "SELECT t.name, COUNT(*) AS n, MIN(c.value) AS lo, MAX(c.value) AS hi, "
     "SUM(c.value) AS total FROM counter c "
     "JOIN counter_track t ON c.track_id = t.id "
     "GROUP BY t.id ORDER BY t.name, n, total"),
    # An int argument of every ftrace event and of every slice.
    ("extract_arg",
     "SELECT COUNT(v) AS n, SUM(v) AS total FROM ("
     "SELECT EXTRACT_ARG(arg_set_id, 'next_pid') AS v FROM ftrace_event "
     "UNION ALL "
     "SELECT EXTRACT_ARG(arg_set_id, 'debug.frame') FROM slice)"),
    # Upstream stores an arg set once however many rows share it: what is
    # compared must not depend on how many times a set is stored.
    ("args_by_key",
     "SELECT key, COUNT(DISTINCT display_value) AS vals, "
     "MIN(int_value) AS lo, MAX(int_value) AS hi FROM args "
     "WHERE key IN ('prev_pid', 'comm', 'debug.items', 'debug.width') "
     "GROUP BY key ORDER BY key"),
    # The biggest table of each kind of trace: ftrace_event or slice.
    ("order_by_ts",
     "SELECT ts, name, dur FROM ("
     "SELECT ts, name, 0 AS dur FROM ftrace_event "
     "UNION ALL SELECT ts, name, dur FROM slice) "
     "ORDER BY ts DESC, name, dur LIMIT 1000"),
]

COUNT_TABLES = ["slice", "sched", "thread_state", "counter", "args",
                "thread", "process", "track", "flow", "ftrace_event"]


# --- protobuf by hand ---------------------------------------------------

def query_args(sql):
    """QueryArgs { sql_query = 1 }."""
    b = sql.encode()
    return b"\x0a" + put_varint(len(b)) + b


def values(buf):
    """Yields (field number, wire type, value) of one message: an int for a
    varint, the payload's bytes otherwise."""
    for num, wt, raw, payload in synth.fields(buf):
        _, i = read_varint(raw, 0)
        if wt == 0:
            yield num, wt, read_varint(raw, i)[0]
        else:
            yield num, wt, payload if wt == 2 else raw[i:]


def packed_varints(buf):
    i, out = 0, []
    while i < len(buf):
        v, i = read_varint(buf, i)
        out.append(v)
    return out


def signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def decode_result(buf):
    """QueryResult -> (column names, rows, error). The reply's chunks are
    QueryResults each; their concatenation parses as one."""
    cols, rows, err = [], [], ""
    cells = []
    for num, wt, v in values(buf):
        if num == 1:
            cols.append(v.decode())
        elif num == 2:
            err += v.decode(errors="replace")
        elif num == 3:
            types, ints, floats, blobs, strs = [], [], [], [], []
            for n2, wt2, v2 in values(v):
                if n2 == 1:
                    types += packed_varints(v2) if wt2 == 2 else [v2]
                elif n2 == 2:
                    ints += ([signed(x) for x in packed_varints(v2)]
                             if wt2 == 2 else [signed(v2)])
                elif n2 == 3:
                    floats += (list(struct.unpack("<%dd" % (len(v2) // 8), v2))
                               if wt2 == 2 else [struct.unpack("<d", v2)[0]])
                elif n2 == 4:
                    blobs.append(bytes(v2))
                elif n2 == 5:
                    s = v2.decode(errors="replace")
                    strs += s.split("\0")[:-1] if s else []
            # Each cell takes the next value of its type's list.
            pools = {2: iter(ints), 3: iter(floats), 4: iter(strs),
                     5: iter(blobs)}
            for t in types:
                if t == 1:
                    cells.append(None)
                elif t in pools:
                    cells.append(next(pools[t]))
                else:
                    raise ValueError("cell type %d" % t)
    if cols:
        rows = [tuple(cells[i:i + len(cols)])
                for i in range(0, len(cells), len(cols))]
    return cols, rows, err


# --- the servers --------------------------------------------------------

class Server:
    def __init__(self, binary, trace, log):
        self.port = free_port()
        self.proc = subprocess.Popen(
            [binary, "-D", "--http-port", str(self.port), trace],
            stdout=log, stderr=log)

    def wait_ready(self, timeout):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise RuntimeError("server exited with %d" % self.proc.returncode)
            try:
                c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
                c.request("GET", "/status")
                ok = c.getresponse().status == 200
                c.close()
                if ok:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise RuntimeError("server not ready in %d s" % timeout)

    def query(self, sql):
        """Returns (milliseconds, columns, rows, error): the time from
        sending the request to the last byte of the reply."""
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=3600)
        c.connect()
        body = query_args(sql)
        t = time.perf_counter()
        c.request("POST", "/query", body,
                  {"Content-Type": "application/x-protobuf"})
        data = c.getresponse().read()
        ms = (time.perf_counter() - t) * 1000
        c.close()
        return (ms,) + decode_result(data)

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def norm(v):
    """Cells compared across binaries: floats to 9 significant digits."""
    if isinstance(v, float):
        return float("%.9g" % v)
    return v


def run_queries(ours, up, trace, out_dir, runs):
    servers = {}
    res = {}
    try:
        for name, binary in (("ours", ours), ("upstream", up)):
            log = open(os.path.join(out_dir, "server.%s.log" % name), "w")
            servers[name] = Server(binary, trace, log)
        for s in servers.values():
            s.wait_ready(1800)
        for qname, sql in QUERIES:
            times = {"ours": [], "upstream": []}
            rows = {}
            for _ in range(runs):
                for name in ("ours", "upstream"):
                    ms, cols, r, err = servers[name].query(sql)
                    times[name].append(ms)
                    rows[name] = (cols, r, err)
            (_, ro, eo), (_, ru, eu) = rows["ours"], rows["upstream"]
            if eo or eu:
                same = "error: " + "; ".join(
                    "%s: %s" % (n, e.strip().splitlines()[0] if e.strip() else "")
                    for n, e in (("ours", eo), ("upstream", eu)) if e)
            elif [tuple(map(norm, x)) for x in ro] == \
                    [tuple(map(norm, x)) for x in ru]:
                same = "same"
            else:
                same = "MISMATCH"
                with open(os.path.join(out_dir, "mismatch.%s.txt" % qname),
                          "w") as f:
                    f.write("-- %s\n%s\n" % (qname, sql))
                    for n, r in (("ours", ro), ("upstream", ru)):
                        f.write("== %s: %d rows\n" % (n, len(r)))
                        for x in r[:200]:
                            f.write("%r\n" % (x,))
            res[qname] = (statistics.median(times["ours"]),
                          statistics.median(times["upstream"]),
                          len(ru), same)
    finally:
        for s in servers.values():
            s.stop()
    with open(os.path.join(out_dir, "queries.txt"), "w") as f:
        for qname, _ in QUERIES:
            if qname in res:
                o, u, n, same = res[qname]
                f.write("%s\t%.2f\t%.2f\t%d\t%s\n" % (qname, o, u, n, same))
    return 0


# --- the report ---------------------------------------------------------

def read_load(d):
    """load.txt: lines 'ours|upstream SECONDS KB' -> {bin: [(s, kb)]}."""
    out = {"ours": [], "upstream": []}
    with open(os.path.join(d, "load.txt")) as f:
        for line in f:
            b, s, kb = line.split()
            out[b].append((float(s), int(kb)))
    return out


def read_counts(path):
    try:
        with open(path) as f:
            rows = list(csv.reader(f))
    except OSError:
        return {}
    return {r[0]: r[1] for r in rows[1:] if len(r) >= 2}


def ratio(a, b):
    return "%.2fx" % (a / b) if b else "-"


def trace_tables(d):
    """Returns (title, [table]); a table is (header, rows)."""
    with open(os.path.join(d, "trace")) as f:
        trace = f.read().strip()
    mb = os.path.getsize(trace) / 1e6
    title = "%s (%.0f MB)" % (os.path.basename(trace), mb)
    tables = []
    load = read_load(d)
    rows = []
    med = {}
    for b in ("ours", "upstream"):
        ts = sorted(x[0] for x in load[b])
        ms = sorted(x[1] / 1024 for x in load[b])
        if not ts:
            continue
        med[b] = (statistics.median(ts), statistics.median(ms))
        rows.append([b, "%.2f / %.2f / %.2f" % (ts[0], med[b][0], ts[-1]),
                     "%.0f / %.0f / %.0f" % (ms[0], med[b][1], ms[-1]),
                     "%.1f" % (mb / med[b][0]), "%.2f" % (med[b][1] / mb)])
    if len(med) == 2:
        rows.append(["ours/upstream", ratio(med["ours"][0], med["upstream"][0]),
                     ratio(med["ours"][1], med["upstream"][1]), "", ""])
    tables.append((["load", "time s (min / median / max)",
                    "peak RSS MB (min / median / max)", "MB/s",
                    "RSS MB per trace MB"], rows))
    co = read_counts(os.path.join(d, "counts.ours.csv"))
    cu = read_counts(os.path.join(d, "counts.upstream.csv"))
    rows, diff = [], []
    for t in COUNT_TABLES:
        o, u = co.get(t, "?"), cu.get(t, "?")
        rows.append([t, o, u, "" if o == u else "DIFFERS"])
        if o != u:
            diff.append(t)
    tables.append((["table", "ours rows", "upstream rows", ""], rows))
    if not co or not cu:
        counts_line = "row counts: not measured"
    elif diff:
        counts_line = "row counts differ: " + ", ".join(diff)
    else:
        counts_line = "row counts: all equal"
    qpath = os.path.join(d, "queries.txt")
    if os.path.exists(qpath):
        rows = []
        with open(qpath) as f:
            for line in f:
                q, o, u, n, same = line.rstrip("\n").split("\t")
                rows.append([q, o, u, ratio(float(o), float(u)), n, same])
        tables.append((["query", "ours ms", "upstream ms", "ours/upstream",
                        "rows", "rows equal"], rows))
    return title, counts_line, tables, med, mb


def plain(header, rows):
    w = [max(len(str(r[i])) for r in [header] + rows)
         for i in range(len(header))]
    out = ["  ".join(str(c).ljust(w[i]) for i, c in enumerate(header)).rstrip(),
           "  ".join("-" * x for x in w)]
    for r in rows:
        out.append("  ".join(str(c).ljust(w[i])
                             for i, c in enumerate(r)).rstrip())
    return "\n".join(out)


def markdown(header, rows):
    out = ["| " + " | ".join(header) + " |",
           "|" + "---|" * len(header)]
    for r in rows:
        out.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(out)


def report(dirs):
    all_ = [trace_tables(d) for d in dirs]
    for title, counts_line, tables, _, _ in all_:
        print("== %s" % title)
        for h, r in tables:
            print(plain(h, r))
            print()
        print(counts_line)
        print()
    print("== markdown")
    print()
    summary = []
    for title, _, _, med, mb in all_:
        if len(med) == 2:
            o, u = med["ours"], med["upstream"]
            summary.append([title, "%.2f s, %.0f MB" % o, "%.2f s, %.0f MB" % u,
                            ratio(o[0], u[0]), ratio(o[1], u[1]),
                            "%.1f / %.1f" % (o[0] * 1000 / mb, u[0] * 1000 / mb),
                            "%.2f / %.2f" % (o[1] / mb, u[1] / mb)])
    print(markdown(["trace", "ours", "upstream", "time ratio", "memory ratio",
                    "load ms per trace MB (ours / upstream)",
                    "RSS MB per trace MB (ours / upstream)"], summary))
    print()
    for title, counts_line, tables, _, _ in all_:
        print("#### %s" % title)
        print()
        for h, r in tables:
            print(markdown(h, r))
            print()
        print(counts_line)
        print()
    return 0


def main(argv):
    if len(argv) >= 5 and argv[0] == "queries":
        runs = 5
        if "--runs" in argv:
            runs = int(argv[argv.index("--runs") + 1])
        return run_queries(argv[1], argv[2], argv[3], argv[4], runs)
    if len(argv) >= 2 and argv[0] == "report":
        return report(argv[1:])
    sys.stderr.write(__doc__)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
