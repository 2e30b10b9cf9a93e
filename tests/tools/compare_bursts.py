#!/usr/bin/env python3
"""Checks perfdiff's burst_dispersion values against the independent
rule's (block_dispersion.py): for every function and metric, the value
perfdiff raised the variance to, or none where the rule's value is not
above the dispersion floor (docs/statistics.md, "Bursty functions").

usage: compare_bursts.py WANT.json FORMAT DIFF.json[:REL_TOL] ...
FORMAT is the format both sides of every DIFF must have been read as.
Also requires gc_mark (the tests' collector) to be bursty beyond 20.
"""
import json
import math
import sys


def main():
    want = json.load(open(sys.argv[1]))
    fmt = sys.argv[2]
    for arg in sys.argv[3:]:
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
        assert f["gc_mark"]["self"]["burst_dispersion"] > 20, (path, f["gc_mark"])


main()
