#!/usr/bin/env python3
"""Checks perfdiff's burst_dispersion values against the independent
rule's (block_dispersion.py): for every function and metric, the value
perfdiff raised the variance to, or none where the rule's value is not
above the dispersion floor (docs/statistics.md, "Bursty functions").

usage: compare_bursts.py [--collector NAME] WANT.json FORMAT DIFF.json[:REL_TOL] ...
FORMAT is the format both sides of every DIFF must have been read as.
Also requires the tests' collector (gc_mark, or NAME) to be bursty beyond
20.
"""
import json
import math
import sys


def main():
    args = sys.argv[1:]
    collector = "gc_mark"
    if args[0] == "--collector":
        collector, args = args[1], args[2:]
    want = json.load(open(args[0]))
    fmt = args[1]
    for arg in args[2:]:
        path, _, tol = arg.partition(":")
        tol = float(tol or 1e-9)
        d = json.load(open(path))
        assert d["baseline"]["format"] == fmt, (path, d["baseline"])
        f = {x["function"]: x for x in d["functions"]}
        floor = d["settings"]["dispersion_floor"]
        seen = 0
        for name, w in want.items():
            for k in ("self", "total"):
                exp = w[k] if w[k] is not None and w[k] > floor else None
                got = f[name][k]["burst_dispersion"]
                assert (got is None) == (exp is None), (path, name, k, got, exp)
                assert got is None or math.isclose(got, exp, rel_tol=tol), \
                    (path, name, k, got, exp)
                seen += exp is not None
        assert seen >= 2, (path, seen)
        assert f[collector]["self"]["burst_dispersion"] > 20, (path, f[collector])


main()
