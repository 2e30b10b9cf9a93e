#!/usr/bin/env python3
"""Bursty functions by simulation (docs/statistics.md, "Bursty functions").

Writes pairs of perf script recordings of a simulated single-threaded
program: six steady functions (30 % down to 7 % of the steady samples,
each sample's function drawn at random) and a collector that runs in
bursts, a Poisson number of them per run (mean 8), each 20 to 60 samples
long, at random moments; 6 000 samples a run, 1 ms apart. Each pair is
judged by each perfdiff given, and the table says, per binary:
  - A/A pairs (one build): how many exit 1, how many flag the collector,
    how many of the steady functions' metrics had their variance raised;
  - a planted +25 % in the 30 % steady function: how often it is found;
  - a planted +100 % in the collector (twice the bursts on average): how
    often it is found, and whether the verdicts go the right way.
Not a test: a measurement. usage: sim_bursty.py PAIRS PERFDIFF...
"""
import json
import math
import os
import random
import subprocess
import sys
import tempfile

STEADY = [("parse", 30), ("hash", 20), ("scan", 15), ("emit", 10),
          ("sort", 8), ("copy", 7)]


def poisson(r, mean):
    k, p, target = 0, 1.0, math.exp(-mean)
    while True:
        p *= r.random()
        if p < target:
            return k
        k += 1


def record(path, r, boost=None, bursts=8.0):
    n = 6000
    gc = set()
    for _ in range(poisson(r, bursts)):
        start, length = r.randrange(n), r.randint(20, 60)
        gc.update(range(start, min(n, start + length)))
    names = [s[0] for s in STEADY]
    weights = [s[1] * (1.25 if s[0] == boost else 1) for s in STEADY]
    with open(path, "w") as f:
        for i in range(n):
            us = i * 1000 + (r.randrange(1, 200, 2) if i > 1 else 0)
            leaf = "collect" if i in gc else r.choices(names, weights)[0]
            f.write("app  42 %d.%06d:    1000000 cpu-clock:pppH: \n"
                    % (100 + us // 1000000, us % 1000000))
            f.write("\t            11fb %s+0x2b (/opt/app/app)\n" % leaf)
            f.write("\t            1092 main+0x32 (/opt/app/app)\n\n")


def judge(pd, a, b):
    p = subprocess.run([pd, "-f", "json", a, b], capture_output=True, text=True)
    d = json.loads(p.stdout)
    f = {x["function"]: x for x in d["functions"]}
    changed = lambda x: any(x[k]["status"] in ("regressed", "improved")
                            for k in ("self", "total"))
    raised = sum(1 for name, _ in STEADY if name in f
                 for k in ("self", "total") if f[name][k].get("burst_dispersion"))
    return p.returncode, f, changed, raised


def main():
    pairs, pds = int(sys.argv[1]), sys.argv[2:]
    r = random.Random(20261123)
    tmp = tempfile.mkdtemp(prefix="pdsim-")
    stats = {pd: dict(aa_exit=0, aa_gc=0, aa_raised=0, aa_flagged=0,
                      found_steady=0, found_gc=0, wrong=0) for pd in pds}
    for i in range(pairs):
        a, b = os.path.join(tmp, "a.txt"), os.path.join(tmp, "b.txt")
        c, g = os.path.join(tmp, "c.txt"), os.path.join(tmp, "g.txt")
        record(a, r)
        record(b, r)
        record(c, r, boost="parse")
        record(g, r, bursts=16.0)
        for pd in pds:
            s = stats[pd]
            rc, f, changed, raised = judge(pd, a, b)
            s["aa_exit"] += rc == 1
            s["aa_gc"] += "collect" in f and changed(f["collect"])
            s["aa_raised"] += raised
            s["aa_flagged"] += sum(1 for x in f.values() if changed(x))
            rc, f, changed, _ = judge(pd, a, c)
            s["found_steady"] += f["parse"]["self"]["status"] == "regressed"
            s["wrong"] += f["parse"]["self"]["status"] == "improved"
            rc, f, changed, _ = judge(pd, a, g)
            st = f["collect"]["self"]["status"] if "collect" in f else "same"
            s["found_gc"] += st == "regressed"
            s["wrong"] += st == "improved"
    print("| %d simulated pairs | %s |" % (pairs, " | ".join(pds)))
    print("|---|%s" % ("---|" * len(pds)))
    rows = [("A/A pairs that exit 1", "aa_exit", pairs),
            ("A/A pairs calling the collector changed", "aa_gc", pairs),
            ("functions flagged per A/A pair", "aa_flagged", None),
            ("steady metrics raised per A/A pair (of 12)", "aa_raised", None),
            ("+25 % in the 30 % function found", "found_steady", pairs),
            ("collector with twice the bursts found", "found_gc", pairs),
            ("verdicts the wrong way", "wrong", None)]
    for label, key, of in rows:
        cells = []
        for pd in pds:
            v = stats[pd][key]
            cells.append("%d (%.1f %%)" % (v, 100 * v / of) if of
                         else "%.3f" % (v / pairs) if key != "wrong" else str(v))
        print("| %s | %s |" % (label, " | ".join(cells)))


main()
