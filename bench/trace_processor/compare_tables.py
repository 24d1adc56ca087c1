#!/usr/bin/env python3
"""Whole tables of two trace processors, row for row.

    compare_tables.py OURS UPSTREAM TRACE... [--tables t1,t2,...]

Runs `SELECT * FROM table ORDER BY 1` through each binary's one-shot
query mode (-Q) for every table and trace, and prints "same" or "DIFF"
with the row counts and the first differing rows. A table one binary
lacks shows as an error line. Every column is compared, the header too:
this is how upstream's rows are held to, beyond the columns the diff tests
ask for. A text-format trace (.textproto) must be encoded first (protoc
--encode=perfetto.protos.Trace, as tests/trace_processor/difftest.sh).
"""
import subprocess
import sys

TABLES = ["slice", "thread", "process", "track", "counter", "flow", "args",
          "_trace_import_logs", "thread_state", "sched", "ftrace_event",
          "metadata", "cpu", "clock_snapshot"]


def rows(binary, trace, table):
    p = subprocess.run([binary, "-Q", "SELECT * FROM %s ORDER BY 1" % table,
                        trace], capture_output=True, timeout=1800)
    out = p.stdout.decode(errors="replace").splitlines()
    if p.returncode != 0 or not out:
        err = p.stderr.decode(errors="replace").strip().splitlines()
        return ["error: " + (err[-1] if err else "exit %d" % p.returncode)]
    return out


def main(argv):
    tables = TABLES
    if "--tables" in argv:
        i = argv.index("--tables")
        tables = argv[i + 1].split(",")
        argv = argv[:i] + argv[i + 2:]
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    ours, upstream, traces = argv[0], argv[1], argv[2:]
    differ = 0
    for trace in traces:
        name = trace.rsplit("/", 1)[-1]
        for table in tables:
            a, b = rows(ours, trace, table), rows(upstream, trace, table)
            if a == b and a[0].startswith("error: "):
                print("none %s %s (%s)" % (name, table, a[0]))
                continue
            if a == b:
                print("same %s %s %d" % (name, table, len(a) - 1))
                continue
            differ += 1
            first = [(i, x, y) for i, (x, y) in enumerate(zip(a, b))
                     if x != y][:2]
            print("DIFF %s %s ours %d upstream %d rows; first: %r" %
                  (name, table, len(a) - 1, len(b) - 1, first or "lengths"))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
