#!/usr/bin/env python3
"""Recomputes perfdiff's statistics from its own JSON counts, independently.

For every function and metric it redoes, from the sample counts and totals
in the JSON and the formulas of statistics.md, the log ratio, its 95 % CI,
the p value (normal tail, or the exact conditional binomial below 200
samples, summed term by term here) and the Benjamini-Hochberg q values,
and fails if perfdiff's numbers differ. usage: recompute_stats.py DIFF.json
"""
import json
import math
import sys


def binom_two_sided(k, n, p):
    # integer counts only (the tests use phi-scaled counts that are whole)
    pmf = [math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(n + 1)]
    lo = sum(pmf[: k + 1])
    hi = sum(pmf[k:])
    return min(1.0, 2 * min(lo, hi))


def main():
    d = json.load(open(sys.argv[1]))
    phi = d["dispersion"]["phi"]
    share = d["settings"]["mode"] == "share"
    A, B = d["baseline"], d["candidate"]
    if share:
        ea, eb = A["samples"], B["samples"]
    else:
        ea, eb = A["samples"] / A["total"], B["samples"] / B["total"]
    ps = []
    checked = 0
    for f in d["functions"]:
        for metric in ("self", "total"):
            m = f[metric]
            a, b = m["baseline_samples"], m["candidate_samples"]
            if m["baseline"] <= 0 or m["candidate"] <= 0:
                continue
            L = math.log((b + 0.5) / eb) - math.log((a + 0.5) / ea)
            se = math.sqrt(phi * (1 / (a + 0.5) + 1 / (b + 0.5)))
            assert math.isclose(m["ratio"], math.exp(L), rel_tol=1e-9), (f["function"], m)
            assert math.isclose(m["ci_low"], math.exp(L - 1.959963984540054 * se), rel_tol=1e-9)
            assert math.isclose(m["ci_high"], math.exp(L + 1.959963984540054 * se), rel_tol=1e-9)
            if a + b >= 200:
                p = math.erfc(abs(L / se) / math.sqrt(2))
                assert math.isclose(m["p"], p, rel_tol=1e-7, abs_tol=1e-300), (f["function"], m["p"], p)
            elif float(a / phi).is_integer() and float((a + b) / phi).is_integer():
                p = binom_two_sided(int(b / phi), int((a + b) / phi), eb / (ea + eb))
                assert math.isclose(m["p"], p, rel_tol=1e-7), (f["function"], m["p"], p)
            if m["q"] is not None:
                ps.append((m["p"], m["q"]))
            checked += 1
    # Benjamini-Hochberg over the tested p values.
    n = len(ps)
    order = sorted(range(n), key=lambda i: ps[i][0])
    q = [0.0] * n
    run = 1.0
    for rank in range(n, 0, -1):
        i = order[rank - 1]
        run = min(run, ps[i][0] * n / rank)
        q[i] = run
    for i in range(n):
        assert math.isclose(ps[i][1], q[i], rel_tol=1e-9), (ps[i], q[i])
    print("checked %d metrics, %d q values" % (checked, n))


if __name__ == "__main__":
    main()
