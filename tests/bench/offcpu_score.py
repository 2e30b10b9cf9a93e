#!/usr/bin/env python3
"""Scores a recording of tests/bench/offcpu_rounds.sh: per state (the
odd rounds as the machine was, the even ones loaded), single pairs of
one round (base against wait, cpu and again) and A/A pairs across the
state's rounds, and three runs a side. Prints, per state: how often the
planted change is called regressed with its kind (nap (blocked) for
wait, compute for cpu), how often either is called the other way or the
other function is called, and how often identical builds exit 1.

usage: tests/bench/offcpu_score.py PERFDIFF OUTDIR ROUNDS
"""
import json
import subprocess
import sys

WANT = {"wait": "nap (blocked)", "cpu": "compute"}


def moved(pd, base, cand):
    r = subprocess.run([pd, "-f", "json"] + base + cand,
                       capture_output=True, text=True)
    d = json.loads(r.stdout)
    out = {f["function"]: f["self"]["status"] for f in d["functions"]
           if not f.get("system")
           and f["self"]["status"] in ("regressed", "improved")}
    return r.returncode, out


def main():
    pd, out, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
    path = lambda b, i: "%s/%s-%d.data" % (out, b, i)
    for state, name in ((1, "as it was"), (0, "loaded")):
        rs = [i for i in range(1, rounds + 1) if i % 2 == state]
        n = {"wait": [0, 0, 0], "cpu": [0, 0, 0]}
        aa = [0, 0]
        for i in rs:
            for k, want in WANT.items():
                rc, m = moved(pd, [path("base", i)], [path(k, i)])
                other = [f for f in WANT.values() if f != want]
                n[k][0] += 1
                n[k][1] += m.get(want) == "regressed"
                n[k][2] += m.get(want) == "improved" or any(
                    f in m for f in other)
        for a, b in [(i, i) for i in rs] + list(zip(rs, rs[1:] + rs[:1])):
            rc, m = moved(pd, [path("base", a)], [path("again", b)])
            aa[0] += 1
            aa[1] += rc == 1
        print("%s: single pairs: wait found %d of %d, cpu found %d of %d,"
              " wrong %d; A/A exit 1 in %d of %d"
              % (name, n["wait"][1], n["wait"][0], n["cpu"][1], n["cpu"][0],
                 n["wait"][2] + n["cpu"][2], aa[1], aa[0]))
        for j in range(0, len(rs) - 2, 3):
            three = rs[j:j + 3]
            for k, want in list(WANT.items()) + [("again", None)]:
                rc, m = moved(pd, sum([["-b", path("base", i)] for i in three], []),
                              sum([["-c", path(k, i)] for i in three], []))
                print("  3 runs %s, %s: exit %d, %s" % (three, k, rc,
                      "found" if want and m.get(want) == "regressed"
                      else sorted(m.items())))


if __name__ == "__main__":
    main()
