#!/usr/bin/env python3
"""Recomputes perfdiff's statistics from its own JSON counts, independently.

For every function and metric it redoes, from the sample counts and totals
in the JSON and the formulas of statistics.md, the log ratio, its 95 % CI
(sampling variance phi0 (1/a + 1/b) plus 2 cv^2 between runs, or lambda
times both when that is larger; a bursty function's sampling part at its
burst_dispersion), the p value (normal tail, or the exact
conditional binomial with mid-p below 200 samples, summed term by term
here when the scaled counts are whole) and the Benjamini-Hochberg q values
over the tested metrics and the profile total, and fails if perfdiff's
numbers differ. usage: recompute_stats.py DIFF.json
"""
import json
import math
import sys


def binom_mid_p(k, n, p):
    # integer counts only (the tests use scaled counts that are whole)
    pmf = [math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(n + 1)]
    lo = sum(pmf[:k]) + pmf[k] / 2
    hi = sum(pmf[k + 1:]) + pmf[k] / 2
    return min(1.0, 2 * min(lo, hi))


def main():
    d = json.load(open(sys.argv[1]))
    phi0 = d["settings"]["dispersion_floor"]
    lam = d["dispersion"]["lambda"]
    cv2 = (d["settings"]["run_cv_pct"] / 100) ** 2
    share = d["settings"]["mode"] == "share"
    A, B = d["baseline"], d["candidate"]
    if share:
        ea, eb = A["samples"], B["samples"]
    else:
        ea, eb = A["samples"] / A["total"], B["samples"] / B["total"]
    # Two BH families: the program's metrics with the profile total, and
    # the system frames set apart. A leaf's total (the same counts as its
    # self) is one member with its self, sharing its q.
    fams = {False: [], True: []}
    checked = exact = 0
    rows = []
    for f in d["functions"]:
        s, t = f["self"], f["total"]
        leaf = all(t[k] == s[k] for k in ("baseline", "candidate",
                                          "baseline_samples", "candidate_samples"))
        rows.append((f["function"], s, f["system"], False))
        rows.append((f["function"], t, f["system"], leaf and s["q"] is not None))
    if not share:  # in share mode the total is 1 by definition, untested
        rows.append(("(total)", d["total"], False, False))
    alpha, min_impact = d["settings"]["alpha"], d["settings"]["min_impact_pct"]
    notable = 0
    for name, m, system, dup in rows:
            # A row of the short tables: a change, or an appearance with
            # the impact and p of a real one.
            want = m["status"] in ("regressed", "improved") or (
                m["status"] in ("added", "removed")
                and m["impact_pct"] >= min_impact
                and m["p"] is not None and m["p"] < alpha)
            assert m["notable"] == want, (name, m)
            notable += want
            a, b = m["baseline_samples"], m["candidate_samples"]
            if m["baseline"] <= 0 or m["candidate"] <= 0:
                continue
            L = math.log((b + 0.5) / eb) - math.log((a + 0.5) / ea)
            S = 1 / (a + 0.5) + 1 / (b + 0.5)
            phi, sig2 = phi0, cv2
            if lam is not None and lam * (S + 2 * cv2) > phi0 * S + 2 * cv2:
                phi, sig2 = lam, lam * cv2
            # a bursty function: the sampling part raised, never lowered
            burst = m.get("burst_dispersion")
            if burst is not None:
                assert burst > phi, (name, burst, phi)
                phi = burst
            var = phi * S + 2 * sig2
            se = math.sqrt(var)
            r = var / S  # the variance's ratio to Poisson
            assert math.isclose(m["ratio"], math.exp(L), rel_tol=1e-9), (name, m)
            assert math.isclose(m["ci_low"], math.exp(L - 1.959963984540054 * se), rel_tol=1e-9)
            assert math.isclose(m["ci_high"], math.exp(L + 1.959963984540054 * se), rel_tol=1e-9)
            if a + b >= 200:
                p = math.erfc(abs(L / se) / math.sqrt(2))
                assert math.isclose(m["p"], p, rel_tol=1e-7, abs_tol=1e-300), (name, m["p"], p)
            elif abs(r - round(r)) < 1e-12 and float(a / round(r)).is_integer() \
                    and float((a + b) / round(r)).is_integer():
                r = round(r)
                p = binom_mid_p(int(b / r), int((a + b) / r), eb / (ea + eb))
                assert math.isclose(m["p"], p, rel_tol=1e-7), (name, m["p"], p)
                exact += 1
            if m["q"] is not None and not dup:
                fams[system].append((m["p"], m["q"]))
            checked += 1
    # Benjamini-Hochberg over the tested p values of each family.
    n = 0
    for ps in fams.values():
        k = len(ps)
        order = sorted(range(k), key=lambda i: ps[i][0])
        q = [0.0] * k
        run = 1.0
        for rank in range(k, 0, -1):
            i = order[rank - 1]
            run = min(run, ps[i][0] * k / rank)
            q[i] = run
        for i in range(k):
            assert math.isclose(ps[i][1], q[i], rel_tol=1e-9), (ps[i], q[i])
        n += k
    if checked == 0:
        sys.exit("nothing compared")
    print("checked %d metrics (%d exact tests), %d q values, %d notable"
          % (checked, exact, n, notable))


if __name__ == "__main__":
    main()
