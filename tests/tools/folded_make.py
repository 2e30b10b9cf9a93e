#!/usr/bin/env python3
"""Writes folded stacks as a profile of another tool, as the tools write
them, so that tests can build histories of several tools from counts set
by hand.

usage: folded_make.py speedscope|firefox FOLDED OUT [FOLDED OUT]...

FOLDED holds "frame;frame;... count" lines (root first). Each count is a
number of samples, 1 ms apart.

- speedscope: one sampled profile named "main", unit milliseconds, one
  sample row of weight 1 per sample, the stacks interleaved as a sampler
  takes them (a row per stack with the weight of its samples would read
  as fewer samples: docs/formats.md).
- firefox: a symbolicated Firefox Profiler processed profile (samply's
  format) with one thread "main": one sample per count, 1 ms apart, each
  stack's samples spread evenly over the run as a sampler interleaves
  them, names in the string table, no CPU deltas (wall clock).
"""
import json
import sys


def read_folded(path):
    stacks = []
    for line in open(path):
        line = line.rstrip("\n")
        if not line.strip():
            continue
        frames, count = line.rsplit(" ", 1)
        stacks.append((frames.split(";"), int(count)))
    return stacks


def speedscope(stacks):
    names, index, timed = [], {}, []
    for path, count in stacks:
        row = []
        for f in path:
            if f not in index:
                index[f] = len(names)
                names.append(f)
            row.append(index[f])
        timed += [((j + 0.5) / count, row) for j in range(count)]
    samples = [row for _, row in sorted(timed, key=lambda t: t[0])]
    weights = [1.0] * len(samples)
    total = float(len(samples))
    return {
        "$schema": "https://www.speedscope.app/file-format-schema.json",
        "exporter": "folded_make.py",
        "profiles": [{"type": "sampled", "name": "main", "unit": "milliseconds",
                      "startValue": 0, "endValue": total,
                      "samples": samples, "weights": weights}],
        "shared": {"frames": [{"name": n} for n in names]},
    }


def firefox(stacks):
    strings, funcs, func_of = [], [], {}
    stack_frame, stack_prefix, stack_of = [], [], {}
    for path, _ in stacks:
        prefix = None
        for depth, name in enumerate(path):
            if name not in func_of:
                func_of[name] = len(funcs)
                funcs.append(len(strings))
                strings.append(name)
            key = tuple(path[: depth + 1])
            if key not in stack_of:
                stack_of[key] = len(stack_frame)
                stack_frame.append(func_of[name])
                stack_prefix.append(prefix)
            prefix = stack_of[key]
    timed = []
    for path, count in stacks:
        timed += [((j + 0.5) / count, stack_of[tuple(path)])
                  for j in range(count)]
    order = [st for _, st in sorted(timed)]
    n = len(funcs)
    thread = {
        "name": "main", "processName": "app", "pid": "7", "tid": 7,
        "samples": {"length": len(order), "stack": order,
                    "time": [float(i) for i in range(len(order))],
                    "weight": None, "weightType": "samples"},
        "stackTable": {"length": len(stack_frame), "frame": stack_frame,
                       "prefix": stack_prefix},
        "frameTable": {"length": n, "address": [-1] * n,
                       "func": list(range(n)), "inlineDepth": [0] * n,
                       "category": [0] * n, "nativeSymbol": [None] * n},
        "funcTable": {"length": n, "name": funcs, "resource": [-1] * n,
                      "isJS": [False] * n, "fileName": [None] * n},
        "resourceTable": {"length": 0, "lib": [], "name": [], "type": []},
        "nativeSymbols": {"length": 0, "libIndex": [], "address": [],
                          "name": []},
        "stringArray": strings,
    }
    return {
        "meta": {"interval": 1.0, "preprocessedProfileVersion": 49,
                 "version": 24, "symbolicated": True, "startTime": 0,
                 "product": "app",
                 "sampleUnits": {"time": "ms", "eventDelay": "ms",
                                 "threadCPUDelta": "µs"}},
        "libs": [],
        "threads": [thread],
    }


def main():
    args = sys.argv[2:]
    if len(args) < 2 or len(args) % 2 or \
            sys.argv[1] not in ("speedscope", "firefox"):
        sys.exit(__doc__)
    write = speedscope if sys.argv[1] == "speedscope" else firefox
    for i in range(0, len(args), 2):
        with open(args[i + 1], "w") as f:
            json.dump(write(read_folded(args[i])), f)


main()
