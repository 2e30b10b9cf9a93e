#!/usr/bin/env python3
"""Independent per-function self/total for Chrome / Node .cpuprofile files.

Reads the file with Python's json (not perfdiff's streaming C code) and
follows docs/formats.md, ".cpuprofile": parents from "children" (ids, or nested
nodes in the old V8 "head" form) or "parent"; sample i weighs the time to
the next sample, the last one the time to endTime when that is sane, else
the mean interval; (root) is no frame and (idle) samples are left out.
Functions are keyed by name; an empty name is "(anonymous BASENAME:LINE+1)".

usage: cpuprofile_funcs.py FILE   prints JSON {"total": ns, "functions": {...}}
"""
import json
import sys


def main():
    d = json.load(open(sys.argv[1], encoding="utf-8"))
    nodes = {}   # id -> (name, parent id)
    old = "head" in d

    def label(fn, url, line):
        if fn:
            return fn
        base = url.rsplit("/", 1)[-1]  # paths differ between machines
        return "(anonymous %s:%d)" % (base, line + 1) if base else "(anonymous)"

    if old:
        todo = [(d["head"], None)]
        while todo:
            n, parent = todo.pop()
            nodes[n["id"]] = [label(n.get("functionName", ""), n.get("url", ""),
                                    n.get("lineNumber", -1)), parent]
            for c in n.get("children", []):
                todo.append((c, n["id"]))
        times = [float(t) for t in d["timestamps"]]
        if len(times) == len(d["samples"]) + 1:
            times = times[1:]          # the first is the profile's start
        end = d.get("endTime", -1) * 1e6
    else:
        for n in d["nodes"]:
            cf = n.get("callFrame", n)
            nodes[n["id"]] = [label(cf.get("functionName", ""), cf.get("url", ""),
                                    cf.get("lineNumber", -1)), n.get("parent")]
        for n in d["nodes"]:
            for c in n.get("children", []):
                nodes[c][1] = n["id"]
        t = d.get("startTime", 0)
        times = []
        for delta in d["timeDeltas"]:
            t += delta
            times.append(float(t))
        end = d.get("endTime", -1)
    samples = d["samples"]
    mean = (times[-1] - times[0]) / (len(times) - 1) if len(times) > 1 else 0
    funcs, total = {}, 0.0
    for i, leaf in enumerate(samples):
        if i + 1 < len(times):
            w = times[i + 1] - times[i]
        else:
            last = end - times[i]
            w = last if 0 <= last <= 10 * mean + 1 else mean
        w = max(w, 0) * 1e3            # microseconds -> ns
        if nodes[leaf][0] == "(idle)":
            continue
        names, n = [], leaf
        while n is not None:
            name, parent = nodes[n]
            if not (parent is None and name == "(root)"):
                names.append(name)
            n = parent
        if not names:
            continue
        total += w
        funcs.setdefault(names[0], [0.0, 0.0])[0] += w
        for name in set(names):
            funcs.setdefault(name, [0.0, 0.0])[1] += w
    json.dump({"total": total, "functions": funcs}, sys.stdout)


if __name__ == "__main__":
    main()
