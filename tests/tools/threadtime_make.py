#!/usr/bin/env python3
"""Writes a PerfView Thread Time export in speedscope's evented format.

usage: threadtime_make.py OUT WAITS WAIT_MS [CPU_MS] [DISK_WAITS DISK_MS]
                          [READY_WAITS READY_MS]

As PerfView's "Thread Time" view exports a process (its Process64 and
Thread pseudo-frames above each stack, one evented profile a thread, in
milliseconds): app!Main() calls app!Parse(), which runs CPU_MS (default
1000) one millisecond at a time, each a CPU_TIME leaf, and app!ReadMft(),
which blocks WAITS times for WAIT_MS each (a BLOCKED_TIME leaf under it,
after the thread that readied it: a "READIED BY TID(...)" frame and that
thread's stack, "... (READIED_BY)") and reads the disk DISK_WAITS times
for DISK_MS each (DiskFile: then DISK_TIME), and, readied, waits
READY_WAITS times READY_MS for a CPU (READIED_TIME). The waits interleave
with the CPU time, as a program that reads while it parses does.
"""
import json
import sys


def main():
    out, waits, wait_ms = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    cpu_ms = float(sys.argv[4]) if len(sys.argv) > 4 else 1000.0
    dwaits = int(sys.argv[5]) if len(sys.argv) > 5 else 0
    dms = float(sys.argv[6]) if len(sys.argv) > 6 else 0.0
    rwaits = int(sys.argv[7]) if len(sys.argv) > 7 else 0
    rms = float(sys.argv[8]) if len(sys.argv) > 8 else 0.0
    names = ["Process64 app (1234) Args:  app.exe", "Threads", "Thread (5678)",
             "app!Main()", "app!Parse()", "CPU_TIME", "app!ReadMft()",
             "READIED BY TID(99) System (4) CPU Wait < 1ms IdleCPUs 1",
             "ntoskrnl!KiExitDispatcher (READIED_BY)", "BLOCKED_TIME",
             "DiskFile: C:\\$Mft", "DISK_TIME",
             "READIED_TIME (waiting for cpu)"]
    F = {n: i for i, n in enumerate(names)}
    ev, t = [], 0.0
    top = [F[names[0]], F["Threads"], F["Thread (5678)"], F["app!Main()"]]

    def span(stack, dur):
        nonlocal t
        for f in stack:
            ev.append({"type": "O", "frame": f, "at": round(t, 6)})
        t += dur
        for f in reversed(stack):
            ev.append({"type": "C", "frame": f, "at": round(t, 6)})

    blocked = [F["app!ReadMft()"], F[names[7]], F[names[8]], F["BLOCKED_TIME"]]
    disk = [F["app!ReadMft()"], F[names[10]], F["DISK_TIME"]]
    ready = [F["app!ReadMft()"], F["READIED_TIME (waiting for cpu)"]]
    jobs = [("b", i) for i in range(waits)] + [("d", i) for i in range(dwaits)] \
        + [("r", i) for i in range(rwaits)]
    cpu_left = int(cpu_ms)
    per = cpu_left // (len(jobs) + 1) if jobs else cpu_left
    for kind, _ in jobs:
        for _ in range(per):
            span(top + [F["app!Parse()"], F["CPU_TIME"]], 1.0)
        cpu_left -= per
        span(top + {"b": blocked, "d": disk, "r": ready}[kind],
             {"b": wait_ms, "d": dms, "r": rms}[kind])
    for _ in range(cpu_left):
        span(top + [F["app!Parse()"], F["CPU_TIME"]], 1.0)
    doc = {"$schema": "https://www.speedscope.app/file-format-schema.json",
           "shared": {"frames": [{"name": n} for n in names]},
           "profiles": [{"type": "evented", "name": "Thread (5678)",
                         "unit": "milliseconds", "startValue": 0,
                         "endValue": round(t, 6), "events": ev}],
           "name": "app.exe Thread Time", "exporter": "PerfView"}
    json.dump(doc, open(out, "w"))


if __name__ == "__main__":
    main()
