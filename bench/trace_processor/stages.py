#!/usr/bin/env python3
"""Where a trace's load spends its time, by stage, from perf samples.

    bench/trace_processor/stages.py TRACE_PROCESSOR TRACE [FREQ]

Runs TRACE_PROCESSOR on TRACE under `perf record --call-graph dwarf`
(build with -O2 -g, no ASan) and sorts each sample by the stage on its
stack: reading, decompression, tokenizing, sorting, parsing (own code)
and SQLite, during tp_parse (the load loop) or tp_eof (the end, where a
trace sorted whole is parsed). The split between tokenizing and parsing
is what decides whether running them on two threads can pay.
"""
import collections
import os
import subprocess
import sys
import tempfile

PARSE = ('item_dispatch', 'tp_proto_parse_sorted', 'tp_json_parse_sorted',
         'tp_systrace_parse_sorted', 'tp_strace_parse_sorted',
         'tp_etw_parse_sorted')
SORT = ('sorter_push', 'tp_sorter_push', 'tp_sorter_push_json',
        'sorter_pop', 'sorter_next', 'queue_take', 'blk_alloc',
        'tp_sorter_drain', 'tp_sorter_release', 'tp_sorter_read_done')
TOKENIZE = ('tokenize_packet', 'tp_proto_feed', 'tp_json_feed',
            'tp_systrace_feed', 'tp_strace_feed', 'tp_gecko_feed')


def stage_of(names):
    for n in names:
        if n == 'tp_new':
            return 'setup'
        if n in ('tp_parse', 'parse_timed'):
            return 'load'
        if n == 'tp_eof':
            return 'end'
    return 'other'


def kind_of(frames):
    names = [s for s, _ in frames]
    leaf_dso = frames[-1][1] if frames else ''
    has = lambda ks: any(n in ks for n in names)
    if 'libz.' in leaf_dso or 'libzstd' in leaf_dso:
        return 'decompress'
    if has(('tp_schema_index',)):
        where = 'index'
    elif has(PARSE):
        where = 'parse'
    elif has(SORT):
        where = 'sort'
    elif has(TOKENIZE):
        where = 'tokenize'
    elif has(('read', '__libc_read', 'ksys_read')):
        where = 'read'
    else:
        where = 'misc'
    if any('libsqlite3' in d for _, d in frames) or \
            any(n.startswith('sqlite3') for n in names):
        return where + ' (SQLite)'
    return where


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    tp, trace = sys.argv[1], sys.argv[2]
    freq = sys.argv[3] if len(sys.argv) > 3 else '200'
    with tempfile.TemporaryDirectory() as d:
        data = os.path.join(d, 'perf.data')
        subprocess.run(['perf', 'record', '-q', '-F', freq, '--call-graph',
                        'dwarf,16384', '-o', data, tp, 'query', trace,
                        'select 1'], check=True, stdout=subprocess.DEVNULL)
        out = subprocess.run(['perf', 'script', '-i', data, '-F',
                              'ip,sym,dso'], check=True,
                             capture_output=True, text=True).stdout
    count = collections.Counter()
    total = 0
    for sample in out.split('\n\n'):
        frames = []
        for line in sample.strip().split('\n'):
            parts = line.strip().split(None, 1)
            if len(parts) < 2:
                continue
            sym, _, dso = parts[1].rpartition(' (')
            sym = sym.replace(' (inlined)', '').split('+')[0].strip()
            frames.append((sym, dso))
        if not frames:
            continue
        frames.reverse()		# root first
        count[(stage_of([s for s, _ in frames]), kind_of(frames))] += 1
        total += 1
    for (stage, kind), n in sorted(count.items(), key=lambda x: -x[1]):
        print('%6.1f%%  %-6s %s' % (100.0 * n / total, stage, kind))
    print('%d samples' % total)


if __name__ == '__main__':
    main()
