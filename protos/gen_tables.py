#!/usr/bin/env python3
# The tables the daemons build from our protos: Perfetto's names, numbers
# and types (the wire ABI), read from the .proto files in one place.
#
#   gen_tables.py event_table TOP > event_table.c
#       traced_probes: per typed ftrace event, its FtraceEvent field and
#       the number and type of each field, keyed by the kernel's names.
#   gen_tables.py tp_tables TOP > tp_gen_tables.c
#       trace_processor: the event name and fields of every FtraceEvent
#       field number, and the /proc/meminfo and /proc/vmstat key names of
#       MeminfoCounters and VmstatCounters by value.
#   gen_tables.py ftrace_event_proto TOP FILE... > ftrace_event.proto
#       The FtraceEvent that protoc-c compiles: its oneof keeps the events
#       whose message is in one of FILES (the compiled event files).
#
# TOP is the source tree. Only names, numbers and types are read.
import os
import re
import sys

FTRACE = "protos/perfetto/trace/ftrace"
COUNTERS = "protos/perfetto/common/sys_stats_counters.proto"
# Key names that are not the enum name, prefix dropped, in lower case.
KEYS = "protos/sys_stats_keys.txt"

# Files whose events traced_probes writes typed, and the kernel event group
# of each (here the file name is the group). ftrace.proto holds the
# kernel's own "ftrace" events (print, funcgraph_*).
EVENT_TABLE_FILES = ("block", "ext4", "f2fs", "filemap", "ftrace", "irq",
                     "oom", "power", "raw_syscalls", "sched", "task",
                     "workqueue")
EVENT_TABLE_TYPES = {"int32": "PT_INT32", "int64": "PT_INT64",
                     "uint32": "PT_UINT32", "uint64": "PT_UINT64",
                     "string": "PT_STRING"}
TP_TYPES = {"string": "FT_STR", "bytes": "FT_BYTES", "bool": "FT_INT",
            "uint32": "FT_UINT", "uint64": "FT_UINT", "int32": "FT_INT",
            "int64": "FT_INT", "double": "FT_DOUBLE", "sint32": "FT_SINT",
            "sint64": "FT_SINT", "fixed64": "FT_FIXED64",
            "fixed32": "FT_FIXED32"}
LABELS = ("optional", "repeated", "required")


class Block:
    """A message, enum or oneof: its statements (token lists) and blocks,
    in file order."""

    def __init__(self, kind, name):
        self.kind, self.name, self.items = kind, name, []

    def statements(self):
        return [i for i in self.items if isinstance(i, list)]

    def blocks(self, kind):
        return [i for i in self.items
                if isinstance(i, Block) and i.kind == kind]

    def fields(self):
        """Its own labelled fields: (label, type, name, number)."""
        return [(s[0], s[1], s[2], int(s[4])) for s in self.statements()
                if s[0] in LABELS]


def parse(path):
    with open(path) as f:
        text = f.read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    toks = re.findall(r'"[^"]*"|[A-Za-z_][\w.]*|-?\d+|[^\s\w]', text)
    top = Block("file", path)
    stack, stmt = [top], []
    for t in toks:
        if t == "{":
            if len(stmt) != 2:
                sys.exit("%s: cannot read %s {" % (path, " ".join(stmt)))
            b = Block(stmt[0], stmt[1])
            stack[-1].items.append(b)
            stack.append(b)
            stmt = []
        elif t == "}":
            if stmt or len(stack) == 1:
                sys.exit("%s: unbalanced }" % path)
            stack.pop()
        elif t == ";":
            if stmt:
                stack[-1].items.append(stmt)
            stmt = []
        else:
            stmt.append(t)
    if stmt or len(stack) != 1:
        sys.exit("%s: truncated" % path)
    return top


def imports(top):
    return [s[1].strip('"') for s in top.statements() if s[0] == "import"]


def ftrace_event(top_dir):
    """(the parsed ftrace_event.proto, its oneof entries: (number, type,
    name) by number)."""
    ev = parse(os.path.join(top_dir, FTRACE, "ftrace_event.proto"))
    msg = [b for b in ev.blocks("message") if b.name == "FtraceEvent"][0]
    oneof = msg.blocks("oneof")[0]
    entries = sorted((int(s[3]), s[0], s[1]) for s in oneof.statements())
    if len(set(e[0] for e in entries)) != len(entries):
        sys.exit("ftrace_event.proto: duplicate oneof number")
    return ev, msg, entries


def messages(top_dir, paths):
    """Top-level messages of the files: name -> (file, Block)."""
    out = {}
    for p in paths:
        for b in parse(os.path.join(top_dir, p)).blocks("message"):
            if b.name in out:
                sys.exit("%s: %s also in %s" % (p, b.name, out[b.name][0]))
            out[b.name] = (p, b)
    return out


def event_table(top_dir, out):
    _, _, entries = ftrace_event(top_dir)
    oneof = dict((typ, (name, num)) for num, typ, name in entries)
    events = []
    for group in EVENT_TABLE_FILES:
        path = os.path.join(top_dir, FTRACE, group + ".proto")
        for b in parse(path).blocks("message"):
            if b.name not in oneof:
                continue
            name, num = oneof[b.name]
            fields = [(f[2], f[3], EVENT_TABLE_TYPES[f[1]])
                      for f in b.fields() if f[1] in EVENT_TABLE_TYPES]
            events.append((group, name, num, fields))
    out.write("/* Generated by protos/gen_tables.py from the ftrace protos: "
              "do not edit. */\n")
    out.write('#include "event_table.h"\n\n')
    for group, name, num, fields in events:
        out.write("static const struct ftrace_proto_field f_%s[] = {\n" % name)
        for fld, fnum, typ in fields:
            out.write('\t{ "%s", %d, %s },\n' % (fld, fnum, typ))
        out.write("};\n")
    out.write("\nconst struct ftrace_proto_event ftrace_proto_events[] = {\n")
    for group, name, num, fields in events:
        out.write('\t{ "%s", "%s", %d, f_%s, %d },\n'
                  % (group, name, num, name, len(fields)))
    out.write("};\n")
    out.write("const unsigned int ftrace_proto_nevents =\n"
              "    sizeof(ftrace_proto_events) / "
              "sizeof(ftrace_proto_events[0]);\n")


def counter_names(top_dir, enum, prefix, keys):
    """value -> kernel key name of each value of the enum."""
    blocks = [b for b in parse(os.path.join(top_dir, COUNTERS)).blocks("enum")
              if b.name == enum]
    names = {}
    for s in blocks[0].statements():
        name, value = s[0], int(s[2])
        names[value] = keys.pop(name, name[len(prefix):].lower())
    return names


def tp_tables(top_dir, out):
    ev, _, entries = ftrace_event(top_dir)
    msgs = messages(top_dir, imports(ev))
    lines = ["/* Generated by protos/gen_tables.py from the protos: "
             "do not edit. */",
             '#include <stddef.h>\n#include "tp_gen_tables.h"\n']
    descs = []
    for num, typ, name in entries:
        fields = []
        if typ in msgs:
            # An enum of the event's own is an int, as upstream stores it.
            enums = {b.name for b in msgs[typ][1].blocks("enum")}
            fields = [(lab, "int32" if t in enums else t, n, num)
                      for lab, t, n, num in msgs[typ][1].fields()
                      if t in TP_TYPES or t in enums]
        descs.append((num, name, fields))
        if not fields:
            continue
        lines.append("static const struct tp_ftrace_field f_%s[] = {" % name)
        for _, ftype, fname, fnum in fields:
            lines.append('\t{ %d, "%s", %s },' % (fnum, fname,
                                                  TP_TYPES[ftype]))
        lines.append("};")
    n = entries[-1][0] + 1
    lines.append("\nconst struct tp_ftrace_desc tp_ftrace_descs[%d] = {" % n)
    for num, name, fields in descs:
        if fields:
            lines.append('\t[%d] = { "%s", f_%s, %d },'
                         % (num, name, name, len(fields)))
        else:
            lines.append('\t[%d] = { "%s", NULL, 0 },' % (num, name))
    lines.append("};")
    lines.append("const size_t tp_ftrace_ndescs = %d;\n" % n)

    keys = {}
    with open(os.path.join(top_dir, KEYS)) as f:
        for line in f:
            w = line.split()
            if w and not w[0].startswith("#"):
                keys[w[0]] = w[1]
    for kind, enum, prefix in (("meminfo", "MeminfoCounters", "MEMINFO_"),
                               ("vmstat", "VmstatCounters", "VMSTAT_")):
        names = counter_names(top_dir, enum, prefix, keys)
        n = max(names) + 1
        lines.append("const char *const tp_%s_names[%d] = {" % (kind, n))
        for k in sorted(names):
            lines.append('\t[%d] = "%s",' % (k, names[k]))
        lines.append("};")
        lines.append("const size_t tp_%s_nnames = %d;\n" % (kind, n))
    if keys:
        sys.exit("%s: not in %s: %s" % (KEYS, COUNTERS, " ".join(keys)))
    out.write("\n".join(lines) + "\n")


def ftrace_event_proto(top_dir, files, out):
    ev, msg, entries = ftrace_event(top_dir)
    kept = [p for p in imports(ev) if p in files]
    msgs = messages(top_dir, kept)
    out.write("// Generated by protos/gen_tables.py from %s/ftrace_event.proto"
              ": do not edit.\n" % FTRACE)
    out.write("// The oneof keeps the events of the files protoc-c "
              "compiles.\n\n")
    out.write('syntax = "proto2";\n\n')
    for p in kept:
        out.write('import "%s";\n' % p)
    out.write("\npackage perfetto.protos;\n\nmessage FtraceEvent {\n")
    for s in msg.statements():
        out.write("  %s;\n" % " ".join(s))
    out.write("\n  oneof event {\n")
    for num, typ, name in entries:
        if typ in msgs:
            out.write("    %s %s = %d;\n" % (typ, name, num))
    out.write("  }\n}\n")


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: gen_tables.py event_table|tp_tables|"
                 "ftrace_event_proto TOP [FILE...]")
    mode, top_dir = sys.argv[1], sys.argv[2]
    if mode == "event_table":
        event_table(top_dir, sys.stdout)
    elif mode == "tp_tables":
        tp_tables(top_dir, sys.stdout)
    elif mode == "ftrace_event_proto":
        ftrace_event_proto(top_dir, sys.argv[3:], sys.stdout)
    else:
        sys.exit("gen_tables.py: unknown table %s" % mode)


if __name__ == "__main__":
    main()
