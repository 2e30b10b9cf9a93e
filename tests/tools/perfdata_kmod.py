#!/usr/bin/env python3
"""Writes a small perf.data whose kernel stacks pass through a kernel module.

usage: perfdata_kmod.py OUT [dwarf|old]

One cpu-clock event (period 1 ms, in each sample), the kernel's text and a
module mapped as perf record maps them (pid -1, the module by its file,
/lib/modules/.../nf-conntrack.ko: a dash, which perf turns into an
underscore in the module's name), a program `app`, and 55 samples: 30 whose
leaf is in the module, called from the kernel, called from the program,
20 in the program alone, and 5 of the idle task (pid 0, of which perf
record writes no COMM: perf calls it swapper) in the kernel. Nothing of it can be symbolized: the point is
the names of the modules, which perf script prints too. With `dwarf`
the event also asks for the user stack (as perf record --call-graph dwarf
does; the samples carry none), which only perf itself unwinds. With
`old` the module is mapped as perf 3.x maps it, by its name in brackets,
"[nf-conntrack.ko]".
"""
import struct
import sys

S_IP, S_TID, S_TIME, S_CALLCHAIN, S_PERIOD = 1, 2, 4, 32, 256
S_STACK_USER = 1 << 13
F_MMAP, F_COMM = 1 << 8, 1 << 9
CTX_KERNEL, CTX_USER = 0xFFFFFFFFFFFFFF80, 0xFFFFFFFFFFFFFE00
MISC_KERNEL, MISC_USER = 1, 2
REC_MMAP, REC_COMM, REC_SAMPLE = 1, 3, 9
PID = 42


def padded(s):
    b = s.encode() + b"\0"
    return b.ljust((len(b) + 7) // 8 * 8, b"\0")


def record(typ, misc, body):
    return struct.pack("<IHH", typ, misc, 8 + len(body)) + body


def main():
    stype = S_IP | S_TID | S_TIME | S_CALLCHAIN | S_PERIOD
    # perf_event_attr: type 1 (software), size, config 0 (cpu-clock),
    # sample_period, sample_type, read_format, flags (mmap, comm)
    dwarf = sys.argv[2:] == ["dwarf"]
    old = sys.argv[2:] == ["old"]
    attr = struct.pack("<IIQQQQQ", 1, 112, 0, 1000000,
                       stype | (S_STACK_USER if dwarf else 0), 0,
                       F_MMAP | F_COMM).ljust(112, b"\0")
    if dwarf:  # sample_stack_user, at byte 88 of perf_event_attr
        attr = attr[:88] + struct.pack("<I", 8192) + attr[92:]
    recs = [
        record(REC_MMAP, MISC_KERNEL,
               struct.pack("<IIQQQ", 0xFFFFFFFF, 0, 0xFFFFFFFF81000000,
                           0x1000000, 0xFFFFFFFF81000000)
               + padded("[kernel.kallsyms]_text")),
        record(REC_MMAP, MISC_KERNEL,
               struct.pack("<IIQQQ", 0xFFFFFFFF, 0, 0xFFFFFFFFC0000000,
                           0x10000, 0)
               + padded("[nf-conntrack.ko]" if old else
                        "/lib/modules/6.1.0-test/kernel/net/netfilter/"
                        "nf-conntrack.ko")),
        record(REC_MMAP, MISC_USER,
               struct.pack("<IIQQQ", PID, PID, 0x400000, 0x1000, 0)
               + padded("/nonexistent/app")),
        record(REC_COMM, 0, struct.pack("<II", PID, PID) + padded("app")),
    ]
    t = 1000
    for pid, chain, n in ((PID, [CTX_KERNEL, 0xFFFFFFFFC0001234,
                                 0xFFFFFFFF81001000, CTX_USER, 0x400100,
                                 0x400200], 30),
                          (PID, [CTX_USER, 0x400100, 0x400200], 20),
                          (0, [CTX_KERNEL, 0xFFFFFFFF81002000], 5)):
        for _ in range(n):
            t += 1000
            body = struct.pack("<QIIQQQ", chain[1], pid, pid, t, 1000000,
                               len(chain))
            body += b"".join(struct.pack("<Q", a) for a in chain)
            recs.append(record(REC_SAMPLE, MISC_USER, body))
    data = b"".join(recs)
    header_size, attr_entry = 104, len(attr) + 16
    out = b"PERFILE2" + struct.pack("<QQ", header_size, attr_entry)
    out += struct.pack("<QQ", header_size, attr_entry)  # attrs
    out += struct.pack("<QQ", header_size + attr_entry, len(data))  # data
    out += struct.pack("<QQ", 0, 0) + b"\0" * 32  # event types, features
    out += attr + struct.pack("<QQ", 0, 0)  # the attr's ids: none
    open(sys.argv[1], "wb").write(out + data)


main()
