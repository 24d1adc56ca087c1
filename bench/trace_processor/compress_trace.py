#!/usr/bin/env python3
"""A trace's packets wrapped into compressed packets, as traced writes them
with compression on: groups of whole packets of about GROUP bytes (512 KB
by default), each group one TracePacket holding it compressed, deflate
(compressed_packets, field 50, zlib) or zstd (zstd_compressed_packets,
field 133, with the zstd command of Debian's package zstd).

    bench/trace_processor/compress_trace.py deflate|zstd IN OUT [GROUP]

For the load of compressed traces against upstream (vs_upstream.sh or
farm-bench); a gzip'd trace is `gzip -c IN > OUT.gz`.
"""
import os
import subprocess
import sys
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "fleet"))
from synth import put_varint, varint  # noqa: E402  (protobuf by hand)


def compress(kind, data):
    if kind == "deflate":
        return 50, zlib.compress(data, 6)
    out = subprocess.run(["zstd", "-3", "-c", "-q"], input=data,
                         capture_output=True, check=True).stdout
    return 133, out


def main():
    if len(sys.argv) not in (4, 5) or sys.argv[1] not in ("deflate", "zstd"):
        sys.exit(__doc__)
    kind, src_path, dst_path = sys.argv[1:4]
    group_bytes = int(sys.argv[4]) if len(sys.argv) == 5 else 512 * 1024
    src = open(src_path, "rb").read()
    out = bytearray()
    i = start = 0
    while i < len(src):
        key, j = varint(src, i)
        if key != 0x0a:
            sys.exit("%s: field %d at offset %d: not a trace of packets"
                     % (src_path, key >> 3, i))
        n, k = varint(src, j)
        i = k + n
        if i - start < group_bytes and i < len(src):
            continue
        field, z = compress(kind, src[start:i])
        # TracePacket { <field> = z }, as Trace.packet (field 1).
        pkt = put_varint(field << 3 | 2) + put_varint(len(z)) + z
        out += b"\x0a" + put_varint(len(pkt)) + pkt
        start = i
    open(dst_path, "wb").write(out)


if __name__ == "__main__":
    main()
