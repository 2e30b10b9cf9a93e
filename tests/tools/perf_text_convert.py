#!/usr/bin/env python3
"""Writes the samples of a simple perf script text (as the tests write
it: a header with a time, frames "addr sym+off (dso)", leaf first) in the
other formats that carry sample times, for checks that each reader puts
the same samples in the same time blocks (tests/cli/t0081-bursty.sh):

  OUT.cpuprofile      Chrome/node, times as timeDeltas in microseconds
  OUT.re.cpuprofile   the same, its arrays in another order
  OUT.fx.json         samply's processed format, stack column first,
                      times in ms, no weights (one sample each)
  OUT.fxre.json       the same with times before stacks and 1 ms of CPU
                      time a sample (threadCPUDelta)
  OUT.speedscope.json evented speedscope: each sample lasts until the
                      next (the last 1 ms), a run of one stack one interval

Times are kept as whole microseconds, so a sample on a block's edge is
on it in every format. usage: perf_text_convert.py IN.txt OUT
"""
import json
import sys


def read(path):
    """[(time in us, [function names, outermost first])]"""
    samples, stack, t = [], None, 0
    for line in open(path):
        if line.strip() and not line.startswith("\t"):
            tok = [x for x in line.split() if x.endswith(":")][0]
            t, stack = int(tok[:-1].replace(".", "")), []
        elif line.strip():
            stack.append(line.split()[1].split("+0x")[0])
        elif stack is not None:
            samples.append((t, list(reversed(stack))))
            stack = None
    return samples


def cpuprofile(samples, out):
    nodes = [{"id": 1, "callFrame": {"functionName": "(root)", "url": ""},
              "children": []}]
    kids, ids, deltas, last = {}, [], [], samples[0][0]
    for t, stack in samples:
        at = 1
        for name in stack:
            if (at, name) not in kids:
                kids[(at, name)] = len(nodes) + 1
                nodes.append({"id": len(nodes) + 1, "children": [],
                              "callFrame": {"functionName": name,
                                            "url": "file:///app.js"}})
                nodes[at - 1]["children"].append(kids[(at, name)])
            at = kids[(at, name)]
        ids.append(at)
        deltas.append(t - last)
        last = t
    d = {"nodes": nodes, "startTime": samples[0][0], "endTime": last + 1000,
         "samples": ids, "timeDeltas": deltas}
    json.dump(d, open(out + ".cpuprofile", "w"))
    order = ("timeDeltas", "samples", "endTime", "startTime", "nodes")
    json.dump({k: d[k] for k in order}, open(out + ".re.cpuprofile", "w"))


def samply(samples, out):
    strings, funcs, stacks, index, col = [], {}, [], {}, []
    for _, stack in samples:
        prefix = None
        for name in stack:
            if name not in funcs:
                funcs[name] = len(funcs)
                strings.append(name)
            key = (prefix, funcs[name])
            if key not in index:
                index[key] = len(stacks)
                stacks.append(key)
            prefix = index[key]
        col.append(prefix)
    n = len(samples)
    cols = {"length": n, "weightType": "samples", "stack": col,
            "time": [t / 1000 for t, _ in samples], "weight": None}
    thread = {"name": "app", "tid": 42, "pid": "42", "processName": "app",
              "stringArray": strings,
              "funcTable": {"length": len(funcs), "name": list(range(len(funcs))),
                            "resource": [-1] * len(funcs)},
              "frameTable": {"length": len(funcs), "func": list(range(len(funcs)))},
              "stackTable": {"length": len(stacks),
                             "prefix": [k[0] for k in stacks],
                             "frame": [k[1] for k in stacks]},
              "samples": cols}
    d = {"meta": {"interval": 1.0, "preprocessedProfileVersion": 49,
                  "version": 24, "sampleUnits": {"time": "ms", "eventDelay": "ms",
                                                 "threadCPUDelta": "µs"}},
         "libs": [], "threads": [thread]}
    json.dump(d, open(out + ".fx.json", "w"))
    cols["threadCPUDelta"] = [1000] * n
    order = ("length", "time", "threadCPUDelta", "weight", "weightType", "stack")
    thread["samples"] = {k: cols[k] for k in order}
    json.dump(d, open(out + ".fxre.json", "w"))


def speedscope(samples, out):
    frames, fidx, events, cur = [], {}, [], []
    for t, stack in samples:
        st = []
        for name in stack:
            if name not in fidx:
                fidx[name] = len(frames)
                frames.append({"name": name, "file": "app"})
            st.append(fidx[name])
        k = 0
        while k < len(cur) and k < len(st) and cur[k] == st[k]:
            k += 1
        events += [{"type": "C", "frame": f, "at": t / 1000} for f in reversed(cur[k:])]
        events += [{"type": "O", "frame": f, "at": t / 1000} for f in st[k:]]
        cur = st
    end = samples[-1][0] / 1000 + 1
    events += [{"type": "C", "frame": f, "at": end} for f in reversed(cur)]
    d = {"$schema": "https://www.speedscope.app/file-format-schema.json",
         "shared": {"frames": frames},
         "profiles": [{"type": "evented", "name": "app", "unit": "milliseconds",
                       "startValue": samples[0][0] / 1000, "endValue": end,
                       "events": events}]}
    json.dump(d, open(out + ".speedscope.json", "w"))


def main():
    samples = read(sys.argv[1])
    for write in (cpuprofile, samply, speedscope):
        write(samples, sys.argv[2])


main()
