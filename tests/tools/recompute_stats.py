#!/usr/bin/env python3
"""Recomputes perfdiff's statistics from its own JSON counts, independently.

For every function and metric it redoes, from the sample counts and totals
in the JSON and the formulas of statistics.md, the log ratio, its 95 % CI
(sampling variance phi0 (1/a + 1/b) plus 2 cv^2 between runs, or lambda
times both when that is larger; a bursty function's sampling part at its
burst_dispersion; a function against the program's shift, with the
shift's variance added; the whole program at its own cv, with its bursty
functions' variance beyond phi), the p value (normal tail, or the exact
conditional binomial with mid-p below 200 samples, summed term by term
here when the scaled counts are whole), the p value against the
threshold (the same tests at the band's nearer edge), the
Benjamini-Hochberg q values for the tested metrics and the profile total
(over the p values against no change, or against the threshold with
--treat), the selected metrics' intervals at the adjusted level
1 - R alpha / m, and the verdicts, and fails if perfdiff's numbers
differ.
usage: recompute_stats.py DIFF.json
"""
import json
import math
import sys
from statistics import NormalDist


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
    # --treat: BH over the p values against the threshold, and the
    # adjusted interval must clear it; else BH over the p values against
    # no change, and the 95 % interval must clear it
    treat = d["settings"]["test"] == "threshold"
    A, B = d["baseline"], d["candidate"]
    if share:
        ea, eb = A["samples"], B["samples"]
    else:
        ea, eb = A["samples"] / A["total"], B["samples"] / B["total"]
    # Two BH families: the program's metrics with the profile total, and
    # the system frames set apart. Metrics of the same samples are one
    # member sharing one q: a leaf's total (the same counts as its self),
    # and a function's metric with the profile total's counts (main).
    fams = {False: [], True: []}
    checked = exact = 0
    rows = []
    keys = ("baseline", "candidate", "baseline_samples", "candidate_samples")
    whole = d["total"] if d["total"]["q"] is not None else None

    def same(a, b):
        return all(math.isclose(a[k], b[k], rel_tol=1e-9) for k in keys) \
            and a["threshold_pct"] == b["threshold_pct"]
    for f in d["functions"]:
        s, t = f["self"], f["total"]
        leaf = all(t[k] == s[k] for k in keys)
        on_all = [whole is not None and not f["system"] and m["q"] is not None
                  and same(m, whole) for m in (s, t)]
        # on every stack (main, not a leaf): judged as the whole program
        big = not share and not leaf and not f["system"] and \
            t["baseline_samples"] >= 0.95 * d["total"]["baseline_samples"] and \
            t["candidate_samples"] >= 0.95 * d["total"]["candidate_samples"]
        rows.append((f["function"], s, f["system"], on_all[0], False))
        rows.append((f["function"], t, f["system"],
                     (leaf and s["q"] is not None) or on_all[1], big))
    if not share:  # in share mode the total is 1 by definition, untested
        rows.append(("(total)", d["total"], False, False, True))
    # one profile a side: functions against the program's shift, the whole
    # program at its own run-to-run variation (statistics.md,
    # "Machine-wide shifts")
    shift = d["dispersion"].get("program_shift") or {}
    sratio = shift.get("ratio") or 1.0
    svar = (shift.get("se") or 0.0) ** 2
    wcv2 = (d["dispersion"].get("whole_run_cv_pct") or 0) / 100
    wcv2 = wcv2 * wcv2 if wcv2 > 0 else cv2
    alpha, min_impact = d["settings"]["alpha"], d["settings"]["min_impact_pct"]
    # the whole program's count holds the bursts of its bursty functions:
    # their variance beyond phi, count times (burst - phi), per side
    xa = xb = 0.0
    for f in d["functions"]:
        burst = f["self"].get("burst_dispersion")
        if burst is not None and not f["system"]:
            xa += (burst - d["dispersion"]["phi"]) * f["self"]["baseline_samples"]
            xb += (burst - d["dispersion"]["phi"]) * f["self"]["candidate_samples"]
    notable = 0
    for name, m, system, dup, big in rows:
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
            ebm = eb if big else eb * sratio
            c2 = wcv2 if big else cv2
            L = math.log((b + 0.5) / ebm) - math.log((a + 0.5) / ea)
            S = 1 / (a + 0.5) + 1 / (b + 0.5)
            phi, sig2 = phi0, c2
            if lam is not None and lam * (S + 2 * c2) > phi0 * S + 2 * c2:
                phi, sig2 = lam, lam * c2
            if not big:
                sig2 += svar / 2
            else:
                sig2 += (xa / (a + 0.5) ** 2 + xb / (b + 0.5) ** 2) / 2
            # a bursty function: the sampling part raised, never lowered
            burst = m.get("burst_dispersion")
            if burst is not None:
                assert burst > phi, (name, burst, phi)
                phi = burst
            var = phi * S + 2 * sig2
            se = math.sqrt(var)
            r = var / S  # the variance's ratio to Poisson
            assert math.isclose(m["ratio"], math.exp(L), rel_tol=1e-9), (name, m)
            assert math.isclose(m["ci_low"], math.exp(L - 1.959963984540054 * se), rel_tol=1e-9), (name, big, m, d["dispersion"])
            assert math.isclose(m["ci_high"], math.exp(L + 1.959963984540054 * se), rel_tol=1e-9)
            # the band of the threshold: |log ratio| <= delta is "no change"
            k = 1 + m["threshold_pct"] / 100
            delta = math.log(k)
            pt = None
            if a + b >= 200:
                p = math.erfc(abs(L / se) / math.sqrt(2))
                assert math.isclose(m["p"], p, rel_tol=1e-7, abs_tol=1e-300), (name, m["p"], p)
                pt = 1.0 if abs(L) <= delta else \
                    min(1.0, math.erfc((abs(L) - delta) / se / math.sqrt(2)))
            elif abs(r - round(r)) < 1e-12 and float(a / round(r)).is_integer() \
                    and float((a + b) / round(r)).is_integer():
                r = round(r)
                p = binom_mid_p(int(b / r), int((a + b) / r), ebm / (ea + ebm))
                assert math.isclose(m["p"], p, rel_tol=1e-7), (name, m["p"], p)
                # at the edge the ratio is k (or 1/k): the candidate's share
                # of the pair's samples is then eb k / (ea + eb k)
                kk = k if L > 0 else 1 / k
                th = ebm * kk / (ea + ebm * kk)
                if abs(L) <= delta or (L > 0) != (b > th * (a + b)):
                    pt = 1.0
                else:
                    pt = binom_mid_p(int(b / r), int((a + b) / r), th)
                exact += 1
            if pt is not None and m["q"] is not None:
                assert math.isclose(m["p_threshold"], pt, rel_tol=1e-7, abs_tol=1e-300), \
                    (name, m["p_threshold"], pt)
            if m["q"] is not None and not dup:
                fams[system].append((m["p_threshold"] if treat else m["p"],
                                     m["q"], m, L, se))
            checked += 1
    # Benjamini-Hochberg over the tested p values of each family.
    n = adjusted = 0
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
            assert math.isclose(ps[i][1], q[i], rel_tol=1e-9), (ps[i][:2], q[i])
        # the selected rows' intervals at level 1 - R alpha / k
        sel = sum(1 for x in q if x < alpha)
        for i in range(k):
            m, L, se = ps[i][2], ps[i][3], ps[i][4]
            if q[i] >= alpha:
                assert m["ci_adjusted_low"] is None, m
                continue
            z = NormalDist().inv_cdf(1 - sel * alpha / (2 * k))
            assert math.isclose(m["ci_adjusted_low"], math.exp(L - z * se), rel_tol=1e-9), m
            assert math.isclose(m["ci_adjusted_high"], math.exp(L + z * se), rel_tol=1e-9), m
            adjusted += 1
        n += k
    # The decision: beyond the threshold by more than chance means
    # selected with the adjusted interval past the band; then regressed
    # or improved when the change is at least the minimum impact.
    for name, m, system, dup, big in rows:
        if m["q"] is None:
            assert m["status"] not in ("regressed", "improved", "negligible"), (name, m)
            continue
        k = 1 + m["threshold_pct"] / 100
        lo, hi = (m["ci_adjusted_low"], m["ci_adjusted_high"]) if treat \
            else (m["ci_low"], m["ci_high"])
        up = m["q"] < alpha and lo > k
        down = m["q"] < alpha and hi < 1 / k
        want = "negligible" if (up or down) and m["impact_pct"] < min_impact \
            else "regressed" if up else "improved" if down else None
        if want:
            assert m["status"] == want, (name, want, m)
        else:
            assert m["status"] in ("same", "inconclusive"), (name, m)
    if checked == 0:
        sys.exit("nothing compared")
    print("checked %d metrics (%d exact tests), %d q values, %d adjusted"
          " intervals, %d notable" % (checked, exact, n, adjusted, notable))


if __name__ == "__main__":
    main()
