#!/usr/bin/env python3
"""Makes a fleet of N traces out of a few recorded ones, for bench/fleet.

Trace i is source i % len(SOURCES), written as OUTDIR/hostNNN.pftrace with
its own trace_uuid (a TraceUuid packet replaces the recorded one) and one of
three kernel releases in its SystemInfo, so the fleet has N distinct traces
over N hosts and three kernels. Everything else is the recorded bytes.

  synth.py OUTDIR N SOURCE...
"""
import os
import sys

KERNELS = ("6.1.0-fleet-a", "6.6.0-fleet-b", "6.12.0-fleet-c")
TRACE_UUID, SYSTEM_INFO, UTSNAME, RELEASE = 89, 45, 1, 3


def varint(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7f) << shift
        shift += 7
        if not c & 0x80:
            return v, i


def put_varint(v):
    out = bytearray()
    while True:
        c = v & 0x7f
        v >>= 7
        if v:
            out.append(c | 0x80)
        else:
            out.append(c)
            return bytes(out)


def fields(b):
    """(field number, wire type, raw bytes of the whole field, payload)."""
    i = 0
    while i < len(b):
        start = i
        key, i = varint(b, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            _, i = varint(b, i)
            yield num, wt, b[start:i], None
        elif wt == 1:
            i += 8
            yield num, wt, b[start:i], None
        elif wt == 5:
            i += 4
            yield num, wt, b[start:i], None
        elif wt == 2:
            n, j = varint(b, i)
            i = j + n
            yield num, wt, b[start:i], b[j:i]
        else:
            raise ValueError("wire type %d" % wt)


def ld(num, payload):
    return put_varint(num << 3 | 2) + put_varint(len(payload)) + payload


def with_release(packet, release):
    """The packet with SystemInfo.utsname.release set to release."""
    out = b""
    for num, wt, raw, pl in fields(packet):
        if num == SYSTEM_INFO and wt == 2:
            si = b""
            for n2, w2, r2, p2 in fields(pl):
                if n2 == UTSNAME and w2 == 2:
                    u = b"".join(r3 for n3, _, r3, _ in fields(p2)
                                 if n3 != RELEASE)
                    r2 = ld(UTSNAME, u + ld(RELEASE, release.encode()))
                si += r2
            raw = ld(SYSTEM_INFO, si)
        out += raw
    return out


def synth(src, k):
    uuid = ld(TRACE_UUID, put_varint(1 << 3) + put_varint(0xf1ee7 + k) +
              put_varint(2 << 3) + put_varint(k + 1))
    out = [ld(1, uuid)]
    for num, wt, raw, pl in fields(src):
        if num != 1 or wt != 2:
            out.append(raw)
            continue
        if any(n == TRACE_UUID for n, _, _, _ in fields(pl)):
            continue
        if any(n == SYSTEM_INFO for n, _, _, _ in fields(pl)):
            pl = with_release(pl, KERNELS[k % len(KERNELS)])
        out.append(ld(1, pl))
    return b"".join(out)


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    outdir, n, sources = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    data = [open(s, "rb").read() for s in sources]
    os.makedirs(outdir, exist_ok=True)
    for k in range(n):
        with open(os.path.join(outdir, "host%03d.pftrace" % k), "wb") as f:
            f.write(synth(data[k % len(data)], k))


if __name__ == "__main__":
    main()
