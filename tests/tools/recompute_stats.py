#!/usr/bin/env python3
"""Recomputes perfdiff's one-pair statistics from its own JSON, independently.

From the sample counts and weights in the JSON (one profile a side, no
history) it redoes the whole count test of statistics.md and
src/stats/pair.c + scale.c + decide.c, and fails if perfdiff's numbers
differ:

- the exposures (samples per unit of weight; the side's samples with
  --share) from the profile total's row;
- the program's shift: the voters (non-system functions with 40 or more
  self samples on the two sides, some on each), their log ratios L and
  Poisson variances S; Tukey's biweight location (c = 4.685, weight
  (1 - u^2)^2 / (v + 0.0025), v = phi S + 2 t2) started from every voter
  (64 voters or fewer; else from their median), the start most voters
  are alike with (within 3 standard errors) winning, ties to the one
  nearer no shift; the pair's own dispersion when 6 or more vote (the
  lambda at which the median squared standardised residual is the
  chi-square(1) median, at least 0.25; found here by bisection to the
  root), moderated as (8 prior + n own) / (8 + n); and the shift as the
  precision-weighted mean of the voters alike with the location - checked
  against "phi", "lambda", "functions" and "program_shift";
- each function's reference, the shift of the *other* voters (found anew
  without it up to 64 voters, else its vote subtracted), the rule for two
  when one of the others holds most of their weight (a total with more
  samples than its self is then judged as it is when that function must
  lie partly under it: more of its self samples than the profile has
  outside the total), and so what each
  metric is judged against: the shift, with variance
  phi S + 2 t2 + var(shift) and a t tail on 6 degrees of freedom; or no
  shift (no reference, two functions moved apart, the whole program: the profile
  total and a non-leaf function holding 95 % of each side's samples)
  with phi S + 2 wcv^2 and the normal tail, or below 200 samples the
  conditional binomial mid-p on counts divided by the variance's ratio
  to Poisson (continuous counts through the incomplete beta function,
  computed here by its hypergeometric series; summed term by term as
  well when the scaled counts are whole);
- the ratio, 95 % interval, p, p against the threshold, change and
  impact beyond the shift, MDE, the Benjamini-Hochberg q values of the
  two families (the program with its total; the system frames), the
  selected intervals at the adjusted level 1 - R alpha / m, the
  notable flags and the statuses; and each metric's shift_ratio, the
  reference it was judged against (null for none).

t2, the between-run variance a side, is the --run-cv floor squared (the
code reads it as that; nothing in the JSON reports another); wcv is the
JSON's whole_run_cv_pct, checked to be max(--run-cv, 20 %), or --run-cv
for shares and exact counts. No bursty dispersion may appear (the
mechanism is gone). Several runs a side and history are other models:
the script refuses them.
usage: recompute_stats.py DIFF.json
"""
import json
import math
import sys
from statistics import NormalDist

MIN_COUNT = 40      # a voter's self samples, the two sides together
EXACT_VOTERS = 64   # up to this many, each reference is found anew
OWN_MIN = 6         # voters that tell the pair's own dispersion
PRIOR_DF = 8.0      # the prior dispersion's worth, in voters
TAU2 = 0.0025       # added to a voter's variance in the location's weights
BIWEIGHT_C = 4.685
BIWEIGHT_ROUNDS = 12
ALIKE_K = 3.0
LAM_MIN = 0.25
OWN_VOTERS = 2000   # voters behind the own dispersion, at most
CHI2_1_MEDIAN = 0.454936423119572
TAIL_DF = 6.0
SINGLE = 0.5
WHOLE_CV = 0.20
WHOLE_SHARE = 0.95
Z95 = NormalDist().inv_cdf(0.975)


def close(a, b, rel=1e-9, abs_=0.0):
    return a is not None and math.isclose(a, b, rel_tol=rel, abs_tol=abs_)


# --- distributions -------------------------------------------------------

def betai(a, b, x):
    """Regularised incomplete beta I_x(a, b), by the series
    x^a (1-x)^b / (a B(a,b)) 2F1(a+b, 1; a+1; x) (DLMF 8.17.8), on the
    side of the mean where it converges fast."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    if x > (a + 1) / (a + b + 2):
        return 1.0 - betai(b, a, 1 - x)
    lead = math.exp(a * math.log(x) + b * math.log1p(-x)
                    - (math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b))) / a
    term = total = 1.0
    n = 0
    while n < 1000000:
        term *= (a + b + n) / (a + 1 + n) * x
        total += term
        n += 1
        if term < 1e-17 * total:
            break
    return lead * total


def t_two_sided(t, df):
    """P(|T| > t), T Student's t on df."""
    t = abs(t)
    if math.isinf(t):
        return 0.0
    return betai(df / 2, 0.5, df / (df + t * t))


def t_quantile(p, df):
    want = 2 * (1 - p)
    lo, hi = 0.0, 1.0
    while t_two_sided(hi, df) > want:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if t_two_sided(mid, df) > want:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def quantile(p, df):
    return t_quantile(p, df) if df > 0 else NormalDist().inv_cdf(p)


def binom_ge(k, n, p):
    """P(X >= k), X ~ Binomial(n, p), continuous in k."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    return betai(k, n - k + 1, p)


def mid_p(k, n, p):
    if n <= 0:
        return 1.0
    k = min(max(k, 0.0), n)
    upper = 0.5 * (binom_ge(k, n, p) + binom_ge(k + 1, n, p))
    return min(1.0, 2 * min(upper, 1 - upper))


def mid_p_terms(k, n, p):
    """The same for whole counts, summed term by term."""
    pmf = [math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(n + 1)]
    lo = sum(pmf[:k]) + pmf[k] / 2
    hi = sum(pmf[k + 1:]) + pmf[k] / 2
    return min(1.0, 2 * min(lo, hi))


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


# --- the program's shift -------------------------------------------------

def var_of(v, lam, t2):
    return lam * v["S"] + 2 * t2


def biweight(vs, lam, t2, s):
    for _ in range(BIWEIGHT_ROUNDS):
        num = den = 0.0
        for v in vs:
            var = var_of(v, lam, t2)
            u = (v["L"] - s) / (BIWEIGHT_C * math.sqrt(var))
            if abs(u) < 1:
                k = (1 - u * u) ** 2 / (var + TAU2)
                num += k * v["L"]
                den += k
        if not den > 0:
            break
        nxt = num / den
        if abs(nxt - s) < 1e-9:
            return nxt
        s = nxt
    return s


def alike(vs, lam, t2, s):
    return [v for v in vs
            if abs(v["L"] - s) <= ALIKE_K * math.sqrt(var_of(v, lam, t2))]


def locate(vs, lam, t2):
    if len(vs) > EXACT_VOTERS:
        return biweight(vs, lam, t2, median([v["L"] for v in vs]))
    best, most = 0.0, 0
    for v in vs:
        s = biweight(vs, lam, t2, v["L"])
        k = len(alike(vs, lam, t2, s))
        if k > most or (k == most and abs(s) < abs(best)):
            best, most = s, k
    return best


def own_dispersion(vs, t2, s):
    if len(vs) > OWN_VOTERS:
        vs = [vs[i * len(vs) // OWN_VOTERS] for i in range(OWN_VOTERS)]

    def med(lam):
        return median([(v["L"] - s) ** 2 / var_of(v, lam, t2) for v in vs])
    if med(1e-9) <= CHI2_1_MEDIAN:
        return LAM_MIN
    lo, hi = 0.0, 1.0
    while med(hi) > CHI2_1_MEDIAN and hi < 1e6:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if med(mid) > CHI2_1_MEDIAN:
            lo = mid
        else:
            hi = mid
    return max((lo + hi) / 2, LAM_MIN)


def sums(vs, lam, t2):
    w = [1 / var_of(v, lam, t2) for v in vs]
    return sum(w), sum(wi * v["L"] for wi, v in zip(w, vs)), max(w, default=0.0)


# --- the test of one metric ----------------------------------------------

def test(a, b, ea, eb, phi, sig2, df):
    """Log ratio, standard error and p of counts a, b."""
    L = math.log((b + 0.5) / eb) - math.log((a + 0.5) / ea)
    S = 1 / (a + 0.5) + 1 / (b + 0.5)
    var = phi * S + 2 * sig2
    se = math.sqrt(var)
    exact = None
    if df > 0:
        p = t_two_sided(L / se, df)
    elif a + b < 200:
        r = var / S  # the variance's ratio to Poisson
        theta = eb / (ea + eb)
        p = mid_p(b / r, (a + b) / r, theta)
        exact = (r, theta)
        if float(b / r).is_integer() and float((a + b) / r).is_integer():
            pt = mid_p_terms(int(b / r), int((a + b) / r), theta)
            assert math.isclose(p, pt, rel_tol=1e-9), ("betai", p, pt)
    else:
        p = math.erfc(abs(L / se) / math.sqrt(2))
    return L, se, p, exact


def p_threshold(L, se, df, a, b, exact, tau_pct):
    delta = math.log(1 + tau_pct / 100)
    if abs(L) <= delta:
        return 1.0
    if exact is not None:
        r, theta = exact
        k = 1 + tau_pct / 100 if L > 0 else 1 / (1 + tau_pct / 100)
        th = theta * k / (theta * k + 1 - theta)  # the band's edge
        if (L > 0) != (b > th * (a + b)):
            return 1.0
        return mid_p(b / r, (a + b) / r, th)
    if df > 0:
        return t_two_sided((abs(L) - delta) / se, df)
    return min(1.0, math.erfc((abs(L) - delta) / se / math.sqrt(2)))


def mde(se, z, tau_pct):
    return (math.exp(math.log(1 + tau_pct / 100) + (z + 0.84) * se) - 1) * 100


def main():
    d = json.load(open(sys.argv[1]))
    A, B = d["baseline"], d["candidate"]
    disp, st = d["dispersion"], d["settings"]
    if (A.get("runs") or 1) > 1 or (B.get("runs") or 1) > 1:
        sys.exit("several runs a side: not this script's model")
    if disp["source"] == "history":
        sys.exit("history: not this script's model")
    share = st["mode"] == "share"
    treat = st["test"] == "threshold"
    alpha, min_impact = st["alpha"], st["min_impact_pct"]
    prior = st["dispersion_floor"] if st["dispersion_floor"] > 0 else 1.0
    cv = st["run_cv_pct"] / 100
    t2 = cv * cv
    tot = d["total"]
    ca, cb = tot["baseline_samples"], tot["candidate_samples"]
    ta, tb = tot["baseline"], tot["candidate"]
    if share:
        ea, eb = (ca if ca > 0 else 1), (cb if cb > 0 else 1)
    else:
        ea = ca / ta if ta > 0 and ca > 0 else 1
        eb = cb / tb if tb > 0 and cb > 0 else 1

    # The voters and the pair's dispersion.
    fns = d["functions"]
    voters = []
    for i, f in enumerate(fns):
        a, b = f["self"]["baseline_samples"], f["self"]["candidate_samples"]
        if a + b >= MIN_COUNT and a > 0 and b > 0 and not f["system"]:
            voters.append({"i": i, "S": 1 / (a + 0.5) + 1 / (b + 0.5),
                           "L": math.log((b + 0.5) / eb) - math.log((a + 0.5) / ea)})
    voters.sort(key=lambda v: v["L"])
    n = len(voters)
    lam, own = prior, None
    if n:
        s = locate(voters, lam, t2)
        if n >= OWN_MIN:
            own = own_dispersion(voters, t2, s)
            k = min(n, OWN_VOTERS)
            lam = (PRIOR_DF * prior + k * own) / (PRIOR_DF + k)
            s = locate(voters, lam, t2)
        al = alike(voters, lam, t2, s)
    else:
        al = []
    assert close(disp["phi"], lam), ("phi", disp["phi"], lam)
    if own is None:
        assert disp["lambda"] is None and disp["functions"] == 0, disp
    else:
        assert close(disp["lambda"], own), ("lambda", disp["lambda"], own)
        assert disp["functions"] == min(n, OWN_VOTERS), disp
    ps = disp["program_shift"]
    assert ps["voters"] == n, ("voters", ps, n)
    # exact counts (allocations) take no shift either; the JSON says so
    # by none alike where the voters show some
    noshift = share or (ps["alike"] == 0 and len(al) > 0)
    wcv = disp["whole_run_cv_pct"] / 100
    assert close(wcv, cv if noshift else max(cv, WHOLE_CV)), ("wcv", wcv)
    sw_all = 0.0
    if not noshift:
        assert ps["alike"] == len(al), ("alike", ps, len(al))
        if al:
            sw_all, swl, _ = sums(al, lam, t2)
            assert close(ps["ratio"], math.exp(swl / sw_all)), ("shift", ps)
            assert close(ps["se"], math.sqrt(1 / sw_all)), ("shift se", ps)
        else:
            assert ps["ratio"] is None, ps
    alike_ids = {v["i"] for v in al}

    def reference(i):
        """Function i's reference: the others' shift, its variance,
        whether one of them holds most of their weight, and which one
        (None when not known: the program's heaviest voter itself, among
        more than 64); None for none."""
        if noshift or not sw_all > 0:
            return None
        if n <= EXACT_VOTERS:
            others = [v for v in voters if v["i"] != i]
            rest = alike(others, lam, t2, locate(others, lam, t2)) if others else []
        else:
            rest = [v for v in al if v["i"] != i]
        sw, swl, top = sums(rest, lam, t2)
        if len(rest) < 1 or not sw > 0:
            return None
        heaviest = lambda vs: max(vs, key=lambda v: 1 / var_of(v, lam, t2))["i"]
        top_i = heaviest(rest)
        if n > EXACT_VOTERS and heaviest(al) == i:
            top_i = None
        return swl / sw, 1 / sw, top > SINGLE * sw, top_i

    # Every metric: (name, metric, system, duplicate member, whole)
    rows = []
    keys = ("baseline", "candidate", "baseline_samples", "candidate_samples")

    def same(x, y):
        return all(math.isclose(x[k], y[k], rel_tol=1e-9) for k in keys) \
            and x["threshold_pct"] == y["threshold_pct"]
    whole_tested = tot["q"] is not None
    for i, f in enumerate(fns):
        s_, t_ = f["self"], f["total"]
        leaf = all(t_[k] == s_[k] for k in keys)
        on_all = [whole_tested and not f["system"] and m["q"] is not None
                  and same(m, tot) for m in (s_, t_)]
        whole = not share and not f["system"] and \
            t_["baseline_samples"] >= WHOLE_SHARE * ca and \
            t_["candidate_samples"] >= WHOLE_SHARE * cb and \
            (t_["baseline_samples"] > s_["baseline_samples"]
             or t_["candidate_samples"] > s_["candidate_samples"])
        rows.append((f["function"], s_, f["system"], on_all[0], False, i))
        rows.append((f["function"], t_, f["system"],
                     (leaf and s_["q"] is not None) or on_all[1], whole, i))
    if not share:  # in share mode the total is 1 by definition, untested
        rows.append(("(total)", tot, False, False, True, None))

    refs = {}
    totals = {r[5]: r[1] for r in rows[1::2] if r[5] is not None}
    selfs = {r[5]: r[1] for r in rows[0::2] if r[5] is not None}
    measured = []
    checked = exact = judged = 0
    for name, m, system, dup, whole, i in rows:
        assert m.get("burst_dispersion") is None, ("bursty", name, m)
        a, b = m["baseline_samples"], m["candidate_samples"]
        wa, wb = m["baseline"], m["candidate"]
        if a + b <= 0:
            continue
        # what the metric is judged against
        shift, vshift, sig2, df = 0.0, 0.0, wcv * wcv, 0.0
        if not whole:
            if i not in refs:
                refs[i] = reference(i)
            ref = refs[i]
            if ref is not None:
                s, vs, single, top_i = ref
                L0 = math.log((b + 0.5) / eb) - math.log((a + 0.5) / ea)
                # a total is never judged against one function: it
                # may be one of its callees
                callees = m is totals.get(i) and (
                    a > selfs[i]["baseline_samples"]
                    or b > selfs[i]["candidate_samples"])
                # ... and the one function lies partly under the total:
                # more of its self samples than the profile has outside
                under = callees and (top_i is None or (
                    selfs[top_i]["baseline_samples"] > tot["baseline_samples"] - a
                    or selfs[top_i]["candidate_samples"] > tot["candidate_samples"] - b))
                # two functions moved against each other (beyond twice
                # the noise): the one that moved more, by as much, changed
                S0 = 1 / (a + 0.5) + 1 / (b + 0.5)
                noise = 2 * math.sqrt(lam * S0 + vs)
                against = not (single and (under or (L0 - s) * L0 < 0 or (
                    abs(L0) < 1e-12 and abs(L0 - s) > 1e-12) or (
                    abs(L0 - s) > noise and not abs(L0) - abs(s) > noise)))
                if against:
                    shift, vshift, sig2, df = s, vs, t2, TAIL_DF
                    judged += 1
        sig2 += vshift / 2
        L, se, p, ex = test(a, b, ea, eb * math.exp(shift), lam, sig2, df)
        assert close(m["p"], p, 1e-7, 1e-300), (name, "p", m["p"], p, m)
        exact += ex is not None
        checked += 1
        if "shift_ratio" in m:  # the shift it was judged against
            if shift != 0 and wa > 0:
                assert close(m["shift_ratio"], math.exp(shift)), (name, "shift", m, shift)
            else:
                assert m["shift_ratio"] is None, (name, "no shift", m)
        if wa <= 0 or wb <= 0:  # added or removed: no ratio
            assert m["ratio"] is None, (name, m)
            continue
        z = quantile(0.975, df)
        assert close(m["ratio"], math.exp(L)), (name, "ratio", m, shift)
        assert close(m["ci_low"], math.exp(L - z * se)), (name, "ci", m, se, df)
        assert close(m["ci_high"], math.exp(L + z * se)), (name, "ci", m, se, df)
        # change and impact beyond the shift
        wbs = wb / math.exp(shift) if not share else wb
        if share:
            sa, sb = wa / ta, wb / tb
            assert close(m["delta_pct"], (sb / sa - 1) * 100, 1e-9, 1e-9), (name, m)
            assert close(m["impact_pct"], abs(sb - sa) * 100, 1e-9, 1e-12), (name, m)
        else:
            assert close(m["delta"], wbs - wa, 1e-9, 1e-6 * abs(wa)), (name, "delta", m)
            assert close(m["delta_pct"], (wbs / wa - 1) * 100, 1e-9, 1e-9), (name, m)
            assert close(m["impact_pct"], abs(wbs - wa) / ta * 100, 1e-9, 1e-12), (name, m)
        if m["q"] is not None:
            pt = p_threshold(L, se, df, a, b, ex, m["threshold_pct"])
            assert close(m["p_threshold"], pt, 1e-7, 1e-300), \
                (name, "p_threshold", m["p_threshold"], pt)
        abar = (a + b) / 2
        measured.append((name, m, system, dup, L, se, df,
                         math.sqrt(2 * lam / abar + 2 * sig2)))

    # Benjamini-Hochberg over each family's members.
    fams = {False: [], True: []}
    for x in measured:
        name, m, system, dup = x[:4]
        if m["q"] is not None and not dup:
            fams[system].append(x)
    nq = adjusted = 0
    for members in fams.values():
        k = len(members)
        pv = [(x[1]["p_threshold"] if treat else x[1]["p"]) for x in members]
        order = sorted(range(k), key=lambda j: pv[j])
        q = [0.0] * k
        run = 1.0
        for rank in range(k, 0, -1):
            j = order[rank - 1]
            run = min(run, pv[j] * k / rank)
            q[j] = run
        sel = sum(1 for x in q if x < alpha)
        for j, x in enumerate(members):
            name, m, _, _, L, se, df, _ = x
            assert close(m["q"], q[j]), (name, "q", m["q"], q[j])
            if q[j] >= alpha:
                assert m["ci_adjusted_low"] is None, (name, m)
                continue
            z = quantile(1 - sel * alpha / (2 * k), df)
            assert close(m["ci_adjusted_low"], math.exp(L - z * se)), (name, m)
            assert close(m["ci_adjusted_high"], math.exp(L + z * se)), (name, m)
            adjusted += 1
        nq += k
    # The MDE: found alone in its family of n, at BH's bar alpha / n.
    for name, m, system, dup, L, se, df, mse in measured:
        nf = len(fams[system]) or 1
        zn = quantile(1 - alpha / (2 * nf), df)
        tau = m["threshold_pct"]
        want = mde(mse, zn, tau) if treat else \
            max(mde(mse, quantile(0.975, df), tau), mde(mse, zn, 0))
        assert close(m["mde_pct"], want, 1e-7), (name, "mde", m["mde_pct"], want)
    # Notable rows, and the decision: beyond the threshold by more than
    # chance (q < alpha and the interval past the band), then regressed
    # or improved when the change is at least the minimum impact.
    notable = 0
    for name, m, system, dup, whole, i in rows:
        want = m["status"] in ("regressed", "improved") or (
            m["status"] in ("added", "removed")
            and m["impact_pct"] >= min_impact
            and m["p"] is not None and m["p"] < alpha)
        assert m["notable"] == want, (name, "notable", m)
        notable += want
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
    print("checked %d metrics (%d against the shift, %d exact tests), %d voters"
          " (%d alike), %d q values, %d adjusted intervals, %d notable"
          % (checked, judged, exact, n, len(al), nq, adjusted, notable))


if __name__ == "__main__":
    main()
