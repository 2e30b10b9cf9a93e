#!/usr/bin/env python3
"""Writes a samply-shaped (Firefox Profiler processed format) profile whose
native frames are addresses only, as samply saves them.

usage: samply_make.py SPEC OUT

SPEC is a JSON file: {"lib": {name, path, debugName, debugPath, breakpadId,
codeId, arch}, "more_libs": optional [lib, ...], "frames": {function: rva,
or [rva, lib index] for a frame of more_libs (1 the first)}, "stacks":
[[[f1, f2, ...], count],
...], "cpu": optional µs per sample (adds threadCPUDelta), "extra_threads":
optional [[name, samples, has_cpu], ...]}. Every stack is a path from the
root; each sample of a stack lands on its last frame. Frame addresses are
rva + 2 (inside the function), written as hex names like samply's.
Samples are 1 ms apart, each stack's spread evenly over the run.
"""
import json
import sys


def thread(name, tid, spec, counts_by_stack, cpu):
    frames = {f: (v if isinstance(v, list) else [v, 0])
              for f, v in spec["frames"].items()}
    libs = [spec["lib"]] + spec.get("more_libs", [])
    order = list(frames)
    strings = ["0x%x" % (frames[f][0] + 2) for f in order]
    strings += [lib["name"] for lib in libs]
    stack_frame, stack_prefix, index = [], [], {}
    for path, _ in counts_by_stack:
        prefix = None
        for depth in range(len(path)):
            key = tuple(path[: depth + 1])
            if key not in index:
                index[key] = len(stack_frame)
                stack_frame.append(order.index(path[depth]))
                stack_prefix.append(prefix)
            prefix = index[key]
    # each stack's samples spread evenly over the run, as a sampler
    # interleaves them (grouped, every function would be a burst of its
    # own in time: docs/statistics.md, "Bursty functions")
    timed = []
    for path, count in counts_by_stack:
        timed += [((j + 0.5) / count, index[tuple(path)]) for j in range(count)]
    samples = [st for _, st in sorted(timed)]
    s = {"length": len(samples), "stack": samples,
         "time": [float(i) for i in range(len(samples))],
         "weight": None, "weightType": "samples"}
    if cpu is not None:
        s["threadCPUDelta"] = [cpu] * len(samples)
    n = len(order)
    return {
        "name": name, "processName": "app", "pid": "7", "tid": tid,
        "samples": s,
        "stackTable": {"length": len(stack_frame), "frame": stack_frame,
                       "prefix": stack_prefix},
        "frameTable": {"length": n,
                       "address": [frames[f][0] + 2 for f in order],
                       "func": list(range(n)), "nativeSymbol": [None] * n,
                       "inlineDepth": [0] * n, "category": [0] * n},
        "funcTable": {"length": n, "name": list(range(n)),
                      "resource": [frames[f][1] for f in order],
                      "isJS": [False] * n, "fileName": [None] * n},
        "resourceTable": {"length": len(libs),
                          "lib": list(range(len(libs))),
                          "name": [n + i for i in range(len(libs))],
                          "type": [1] * len(libs)},
        "nativeSymbols": {"length": 0, "libIndex": [], "address": [],
                          "name": []},
        "stringArray": strings,
    }


def main():
    spec = json.load(open(sys.argv[1]))
    cpu = spec.get("cpu")
    threads = [thread("main", 7, spec, spec["stacks"], cpu)]
    first = spec["stacks"][0][0]
    for i, (name, count, has_cpu) in enumerate(spec.get("extra_threads", [])):
        threads.append(thread(name, 100 + i, spec, [[first, count]],
                              cpu if has_cpu else None))
    profile = {
        "meta": {"interval": 1.0, "preprocessedProfileVersion": 49,
                 "version": 24, "symbolicated": False, "startTime": 0,
                 "sampleUnits": {"time": "ms", "eventDelay": "ms",
                                 "threadCPUDelta": "µs"}},
        "libs": [spec["lib"]] + spec.get("more_libs", []),
        "threads": threads,
    }
    json.dump(profile, open(sys.argv[2], "w"))


main()
