#!/usr/bin/env python3
"""CPU and waiting of a Firefox processed profile's threads, read apart
from perfdiff (Python's json, its own walk of the samples): for each
sample after a thread's first, the time since the sample before and its
threadCPUDelta, summed by stack; a stack's waiting is its time beyond
its CPU (docs/formats.md, "samply and the Firefox Profiler", --weight
both). Prints JSON {"cpu": ns, "waiting": ns, "threads": [[name, cpu,
waiting], ...]}.

usage: ff_waits.py FILE
"""
import gzip
import json
import sys


def load(path):
    raw = open(path, "rb").read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return json.loads(raw.decode("utf-8"))


def main():
    d = load(sys.argv[1])
    unit = d["meta"].get("sampleUnits", {}).get("threadCPUDelta", "µs")
    scale = {"ns": 1, "µs": 1e3, "ms": 1e6}[unit]
    out = {"cpu": 0.0, "waiting": 0.0, "threads": []}
    for t in d["threads"]:
        s = t["samples"]
        stacks = s["stack"]
        if len(stacks) < 2 or "threadCPUDelta" not in s:
            continue
        times = s.get("time")
        if times is None:
            times, acc = [], 0.0
            for x in s["timeDeltas"]:
                acc += x
                times.append(acc)
        gap, cpu = {}, {}
        for i in range(1, len(stacks)):
            st = stacks[i]
            if st is None:
                continue
            gap[st] = gap.get(st, 0.0) + (times[i] - times[i - 1]) * 1e6
            c = s["threadCPUDelta"][i]
            if c is not None and c > 0:
                cpu[st] = cpu.get(st, 0.0) + c * scale
        c = sum(cpu.values())
        w = sum(max(0.0, g - cpu.get(st, 0.0)) for st, g in gap.items())
        out["cpu"] += c
        out["waiting"] += w
        out["threads"].append([t.get("name"), c, w])
    json.dump(out, sys.stdout)


main()
