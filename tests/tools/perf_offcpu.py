#!/usr/bin/env python3
"""Per-thread CPU and off-CPU time of a perf script text, read apart from
perfdiff: CPU is the sum of the cpu-clock samples' periods, off-CPU the
gaps between each "PERF_RECORD_SWITCH OUT" line of a thread and its next
"PERF_RECORD_SWITCH IN" (the kernel's switch records, which perfdiff
does not use for a wait's start: it takes the sched_switch sample's
time and stack). Prints "tid cpu_ms offcpu_ms" per thread.

usage: perf_offcpu.py FILE
"""
import re
import sys

HEAD = re.compile(r"^\S.*?\s(\d+)\s+(?:\[\d+\]\s+)?(\d+\.\d+):\s+(.*)$")


def main():
    cpu, off, out_at = {}, {}, {}
    with open(sys.argv[1], errors="replace") as f:
        for line in f:
            m = HEAD.match(line)
            if not m:
                continue
            tid, t, rest = int(m.group(1)), float(m.group(2)), m.group(3)
            if rest.startswith("PERF_RECORD_SWITCH"):
                word = rest.split()[1]
                if word == "OUT":
                    out_at[tid] = t
                elif word == "IN" and tid in out_at:
                    off[tid] = off.get(tid, 0) + t - out_at.pop(tid)
                continue
            ev = rest.split()
            if len(ev) >= 2 and ev[1].startswith("cpu-clock"):
                cpu[tid] = cpu.get(tid, 0) + int(ev[0]) / 1e6
    for tid in sorted(set(cpu) | set(off)):
        print(tid, "%.3f" % cpu.get(tid, 0), "%.3f" % (off.get(tid, 0) * 1e3))


main()
