#!/usr/bin/env python3
"""Writes small pprof profiles byte by byte, for tests whose numbers are
counted by hand, and broken variants of them.

usage: pprof_make.py KIND OUT
KIND: good, truncated, wire, string-range, no-location, no-function,
      string0, concat, negative, values; mutex: the good profile's
      numbers as Go writes a mutex profile (contentions/count and
      delay/nanoseconds, no period)
"""
import gzip
import sys


def varint(v):
    if v < 0:
        v += 1 << 64
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(num, wt, payload):
    tag = varint(num << 3 | wt)
    if wt == 0:
        return tag + varint(payload)
    return tag + varint(len(payload)) + payload


def msg(*fields):
    return b"".join(fields)


def packed(num, values):
    return field(num, 2, b"".join(varint(v) for v in values))


def unpacked(num, values):
    return b"".join(field(num, 0, v) for v in values)


STRINGS = ["", "samples", "count", "cpu", "nanoseconds", "main", "parse",
           "inlined_helper", "/usr/bin/app", "libc.so.6", "memcpy",
           "_Z4workv", ""]


def profile(kind):
    s = {name: i for i, name in enumerate(STRINGS) if name}
    out = bytearray()
    # sample_type: [samples/count, cpu/nanoseconds]
    out += field(1, 2, msg(field(1, 0, s["samples"]), field(2, 0, s["count"])))
    out += field(1, 2, msg(field(1, 0, s["cpu"]), field(2, 0, s["nanoseconds"])))
    # Samples, leaf first. Locations: 10 main, 20 parse with an inlined
    # helper, 30 memcpy in libc, 40 unsymbolized in the app, 50 work
    # (system name only).
    # a mutex profile's delays are no multiples of a period
    jit = 1234567 if kind == "mutex" else 0
    vals = [3, 30000000 + jit]
    if kind == "negative":
        vals = [3, -30000000]
    out += field(2, 2, msg(packed(1, [20, 10]), packed(2, vals)))
    # the same stack again, unpacked and with a label: summed with it
    label = field(3, 2, msg(field(1, 0, s["count"]), field(3, 0, 7)))
    out += field(2, 2, msg(unpacked(1, [20, 10]),
                           packed(2, [2, 20000000 + jit]), label))
    out += field(2, 2, msg(packed(1, [30, 20, 10]),
                           packed(2, [4, 40000000 + jit])))
    out += field(2, 2, msg(unpacked(1, [40, 10]),
                           unpacked(2, [1, 10000000 + jit])))
    out += field(2, 2, msg(unpacked(1, [50, 10]),
                           packed(2, [5, 50000000 + jit])))
    if kind == "values":
        out += field(2, 2, msg(unpacked(1, [10]), unpacked(2, [1])))
    if kind == "no-location":
        out += field(2, 2, msg(unpacked(1, [99]), packed(2, [1, 10000000])))
    # zero weight: its functions must not show up
    out += field(2, 2, msg(unpacked(1, [10]), packed(2, [0, 0])))
    # mappings: 1 the app (file offset 0x1000), 2 libc
    out += field(3, 2, msg(field(1, 0, 1), field(2, 0, 0x400000),
                           field(3, 0, 0x500000), field(4, 0, 0x1000),
                           field(5, 0, s["/usr/bin/app"])))
    out += field(3, 2, msg(field(1, 0, 2), field(2, 0, 0x7F0000),
                           field(3, 0, 0x800000),
                           field(5, 0, s["libc.so.6"])))
    # locations
    def line(fn, ln):
        return field(4, 2, msg(field(1, 0, fn), field(2, 0, ln)))
    out += field(4, 2, msg(field(1, 0, 10), field(2, 0, 1),
                           field(3, 0, 0x401000), line(1, 5)))
    # innermost first: inlined_helper was inlined into parse
    out += field(4, 2, msg(field(1, 0, 20), field(2, 0, 1),
                           field(3, 0, 0x402000), line(3, 9), line(2, 7)))
    out += field(4, 2, msg(field(1, 0, 30), field(2, 0, 2),
                           field(3, 0, 0x7F1234), line(4, 0)))
    out += field(4, 2, msg(field(1, 0, 40), field(2, 0, 1),
                           field(3, 0, 0x403abc)))
    out += field(4, 2, msg(field(1, 0, 50), field(2, 0, 1),
                           field(3, 0, 0x404000),
                           line(99 if kind == "no-function" else 5, 1)))
    # functions: 1 main, 2 parse, 3 inlined_helper, 4 memcpy, 5 system
    # name only
    for fid, name in ((1, "main"), (2, "parse"), (3, "inlined_helper"),
                      (4, "memcpy")):
        out += field(5, 2, msg(field(1, 0, fid), field(2, 0, s[name])))
    sys_idx = 500 if kind == "string-range" else s["_Z4workv"]
    out += field(5, 2, msg(field(1, 0, 5), field(3, 0, sys_idx)))
    if kind == "wire":
        out += field(6, 0, 5)  # a string table entry as a varint
    strings = list(STRINGS[:-1])
    if kind == "string0":
        strings[0] = "x"
    if kind == "mutex":
        strings[s["samples"]] = "contentions"
        strings[s["cpu"]] = "delay"
    for t in strings:
        out += field(6, 2, t.encode())
    out += field(9, 0, 1700000000000000000)
    if kind == "concat":
        out += field(9, 0, 1700000000000000001)
    if kind != "mutex":
        out += field(11, 2, msg(field(1, 0, s["cpu"]),
                                field(2, 0, s["nanoseconds"])))
        out += field(12, 0, 10000000)
    if kind == "truncated":
        out = out[:-40]
    return bytes(out)


def main():
    kind, path = sys.argv[1], sys.argv[2]
    data = profile(kind)
    if path.endswith(".gz"):
        data = gzip.compress(data, mtime=0)
    with open(path, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    main()
