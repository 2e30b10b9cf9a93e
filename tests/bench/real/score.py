#!/usr/bin/env python3
"""Scores perfdiff on the real-program benchmark (tests/bench/real/README.md).

For every (program, machine state) cell of the recordings record.sh made:

  single pairs (one run a side)
    A/A:      every pair of the cell's identical runs (a and rb of every
              round: 120 pairs of 16 runs)
    planted:  p10, p35, p20 against a of the same round, a against pad
              (m25), each in its round
  three runs a side
    A/A:      40 draws of six identical runs, three against three
    planted:  the base build's runs of three consecutive rounds against
              the planted build's

and per mode, perfdiff's exit-1 rate on A/A, unchanged functions flagged
(self or total regressed or improved) per A/A comparison and per planted
comparison, the planted function found (its self verdict regressed for a
slowdown, improved for a speedup), verdicts the wrong way (the planted
function, or any function, called changed in the direction opposite to
its truth: unchanged functions have none, so only the planted one
counts), the headline naming the planted function when it is called
changed, the references' finds and how many of them perfdiff found too,
and format agreement (the planted function's self verdict the same from
perf script, folded stacks, PerfView-shaped speedscope and samply-shaped
Firefox profiles of the same samples).

References, computed here from the folded stacks:
  poisson   per-function conditional binomial test of the self counts,
            the programs' sample counts as exposure (shares), BH at 0.05
            over functions with 20 samples or more, point ratio beyond 5 %
  truevar   perfdiff's decision (BH, the 95 % interval beyond the
            threshold) with each function's true between-run variance of
            its log share, measured over the cell's identical-build runs
            (a and rb of every round of the state) leaving out the runs
            compared: the best a single pair could do with that claim
  welch     three runs a side: Welch's t on per-run ln(count + 1/2), BH,
            and (as perfdiff claims) the 95 % interval beyond 5 %

usage: score.py PERFDIFF WORK [--programs a,b] [--half tune|held|all]
                [--states quiet,load,heavy] [--formats perf,folded,...]
                [--modes 1,3] [--jobs N] [--json OUT] [-- EXTRA-ARGS...]
"""
import argparse
import concurrent.futures
import glob
import json
import math
import os
import random
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
import programs  # noqa: E402
from shapes import bh, binom_two_sided, t_two_sided  # noqa: E402

ALPHA = 0.05
THRESHOLD = math.log(1.05)
SUFFIX = re.compile(r"(\.(constprop|isra|part|cold|lto_priv)(\.\d+)?)+$")
FORMATS = ("perf", "folded", "speedscope", "firefox")
TOOLS = os.path.join(HERE, "..", "..", "tools")


def norm(name):
    return SUFFIX.sub("", name)


def is_system(name):
    return name.endswith("_[k]") or name.startswith("[")


# ------------------------------------------------------------ the files

def derived(path, fmt):
    """The run at path (BUILD-R.perf.txt.gz) in format fmt, made once:
    folded by shapes_fold.py, speedscope and firefox from the folded
    stacks by folded_make.py (both independent of perfdiff)."""
    if fmt == "perf":
        return path
    base = path[:-len(".perf.txt.gz")]
    out = {"folded": base + ".folded",
           "speedscope": base + ".speedscope.json",
           "firefox": base + ".firefox.json"}[fmt]
    if os.path.exists(out):
        return out
    if fmt == "folded":
        plain = base + ".perf.txt.tmp"
        with open(plain, "wb") as f:
            subprocess.run(["gzip", "-dc", path], stdout=f, check=True)
        subprocess.run([sys.executable, os.path.join(HERE, "..",
                        "shapes_fold.py"), plain, out], check=True)
        os.unlink(plain)
        return out
    folded = derived(path, "folded")
    subprocess.run([sys.executable, os.path.join(TOOLS, "folded_make.py"),
                    fmt, folded, out + ".tmp"], check=True)
    os.replace(out + ".tmp", out)
    return out


_counts = {}


def counts(path):
    """Self counts of the program's functions (suffixes folded) and the
    program's sample count, from a run's folded stacks (system leaves
    set apart, as perfdiff sets them apart by default)."""
    folded = derived(path, "folded")
    if folded not in _counts:
        selfc, total = {}, 0
        with open(folded) as f:
            for line in f:
                stack, _, n = line.rstrip("\n").rpartition(" ")
                leaf = stack.rsplit(";", 1)[-1]
                if is_system(leaf):
                    continue
                n = int(n)
                total += n
                leaf = norm(leaf)
                selfc[leaf] = selfc.get(leaf, 0) + n
        _counts[folded] = (selfc, total)
    return _counts[folded]


def cells(work, progs, states):
    """(program, state) -> {build: {round: path}}"""
    out = {}
    for p in progs:
        for s in states:
            runs = {}
            for path in glob.glob(os.path.join(work, p, "runs", s,
                                               "*.perf.txt.gz")):
                b, r = os.path.basename(path)[:-len(".perf.txt.gz")] \
                    .rsplit("-", 1)
                runs.setdefault(b, {})[int(r)] = path
            if runs:
                out[(p, s)] = runs
    return out


# ------------------------------------------------------------ comparisons

def identical_runs(runs):
    """The cell's runs of the unchanged builds, a and rb, by round."""
    out = []
    for r in sorted(set(runs.get("a", {})) | set(runs.get("rb", {}))):
        for b in ("a", "rb"):
            if r in runs.get(b, {}):
                out.append(runs[b][r])
    return out


def comparisons(runs, modes):
    """The cell's comparisons: (mode, kind, [base paths], [cand paths]),
    kind 'aa' or a planted pair's name. A/A: every pair of the cell's
    identical runs (one a side), and 40 draws of six of them split three
    and three (seeded); planted: each pair in its round (one a side),
    and three consecutive rounds of the state (three a side)."""
    rounds = sorted(set(runs.get("a", {})) & set(runs.get("rb", {})))
    ident = identical_runs(runs)
    out = []
    if 1 in modes:
        for i in range(len(ident)):
            for j in range(i + 1, len(ident)):
                out.append((1, "aa", [ident[i]], [ident[j]]))
        for r in rounds:
            for pair, (base, cand, _, _) in programs.PAIRS.items():
                if r in runs.get(base, {}) and r in runs.get(cand, {}):
                    out.append((1, pair, [runs[base][r]], [runs[cand][r]]))
    if 3 in modes:
        rng = random.Random(len(ident))
        for _ in range(40 if len(ident) >= 6 else 0):
            six = rng.sample(ident, 6)
            out.append((3, "aa", six[:3], six[3:]))
        for i in range(len(rounds) - 2):
            w = rounds[i:i + 3]
            for pair, (base, cand, _, _) in programs.PAIRS.items():
                if all(r in runs.get(base, {}) and r in runs.get(cand, {})
                       for r in w):
                    out.append((3, pair, [runs[base][r] for r in w],
                                [runs[cand][r] for r in w]))
    return out


def run_pd(pd, extra, base, cand, fmt):
    b = [derived(p, fmt) for p in base]
    c = [derived(p, fmt) for p in cand]
    args = [pd, "-f", "json"] + extra
    if len(b) == 1:
        args += [b[0], c[0]]
    else:
        for x in b:
            args += ["-b", x]
        for x in c:
            args += ["-c", x]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode > 1:
        sys.exit("perfdiff failed (%s): %s" % (" ".join(args), r.stderr))
    d = json.loads(r.stdout)
    funcs = {}
    for f in d["functions"]:
        if f.get("system"):
            continue
        name = norm(f["function"])
        st = (f["self"]["status"], (f.get("total") or {}).get("status"))
        # suffixed clones of one function: keep the most telling row
        if name not in funcs or st[0] in ("regressed", "improved"):
            funcs[name] = {"self": st[0], "total": st[1],
                           "mde": f["self"].get("mde_pct")}
    return {"exit": r.returncode, "funcs": funcs,
            "headline": d.get("headline", ""), "verdict": d["verdict"]}


# ------------------------------------------------------------ references

def poisson(bpath, cpath):
    (sb, nb), (sc, nc) = counts(bpath), counts(cpath)
    ps, ratio = {}, {}
    for f in set(sb) | set(sc):
        a, b = sb.get(f, 0), sc.get(f, 0)
        if a + b < 20:
            continue
        ps[f] = binom_two_sided(b, a + b, nc / (nb + nc))
        ratio[f] = ((b + 0.5) / nc) / ((a + 0.5) / nb)
    q = bh(ps) if ps else {}
    return {f: (1 if ratio[f] > 1 else -1) for f in ps
            if q[f] < ALPHA and abs(math.log(ratio[f])) > THRESHOLD}


def logshare(path, f):
    s, n = counts(path)
    return math.log((s.get(f, 0) + 0.5) / max(n, 1))


def truevar(bpath, cpath, identical):
    """perfdiff's decision (BH at 0.05, the 95 % interval beyond the
    threshold) with each function's variance of its log share over the
    identical-build runs, the two compared left out: the same claim as a
    verdict, made knowing each function's noise as well as the cell's
    other runs tell it.  That variance is itself an estimate from k runs,
    so the tail and the interval are Student's t on k - 1 degrees of
    freedom: with the normal tail, a variance estimated from four runs
    made the reference flag half of the identical pairs."""
    (sb, nb), (sc, nc) = counts(bpath), counts(cpath)
    others = [p for p in identical if p not in (bpath, cpath)]
    ps, diff = {}, {}
    df = len(others) - 1
    for f in set(sb) | set(sc):
        if sb.get(f, 0) + sc.get(f, 0) < 20 or len(others) < 4:
            continue
        v = statistics.variance([logshare(p, f) for p in others])
        d = logshare(cpath, f) - logshare(bpath, f)
        if v <= 0:
            continue
        ps[f] = t_two_sided(d / math.sqrt(2 * v), df)
        diff[f] = (d, t_quantile(df) * math.sqrt(2 * v))
    q = bh(ps) if ps else {}
    return {f: (1 if diff[f][0] > 0 else -1) for f in ps
            if q[f] < ALPHA and abs(diff[f][0]) - diff[f][1] > THRESHOLD}


def welch(bpaths, cpaths):
    sides = [[counts(p)[0] for p in fs] for fs in (bpaths, cpaths)]
    names = set()
    for side in sides:
        for s in side:
            names |= set(s)
    ps, diff = {}, {}
    for f in names:
        if sum(sum(s.get(f, 0) for s in side) for side in sides) < 20:
            continue
        ys = [[math.log(s.get(f, 0) + 0.5) for s in side] for side in sides]
        m = [statistics.fmean(y) for y in ys]
        v = [statistics.variance(y) / len(y) for y in ys]
        d = m[1] - m[0]
        se2 = v[0] + v[1]
        if se2 <= 0:
            ps[f] = 1.0 if d == 0 else 0.0
            diff[f] = (d, 0.0)
        else:
            df = se2 ** 2 / sum(x ** 2 / (len(y) - 1) for x, y in zip(v, ys))
            ps[f] = t_two_sided(d / math.sqrt(se2), df)
            diff[f] = (d, t_quantile(df) * math.sqrt(se2))
    q = bh(ps) if ps else {}
    return {f: (1 if diff[f][0] > 0 else -1) for f in ps
            if q[f] < ALPHA and abs(diff[f][0]) - diff[f][1] > THRESHOLD}


def t_quantile(df, p=0.05):
    """The two-sided p quantile of Student's t on df degrees of freedom."""
    lo, hi = 0.0, 1000.0
    for _ in range(80):
        mid = (lo + hi) / 2
        if t_two_sided(mid, df) > p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


# ------------------------------------------------------------ scoring

def called(st):
    return {"regressed": 1, "improved": -1}.get(st, 0)


def planted_fn(prog, pair):
    site = programs.PAIRS[pair][2]
    return programs.symbol(prog, site)


class Tally:
    def __init__(self):
        self.n = {}

    def add(self, key, v=1):
        self.n[key] = self.n.get(key, 0) + v

    def get(self, key):
        return self.n.get(key, 0)


def score_cell(prog, runs, res, modes):
    """Tallies of one cell from the perfdiff results res[(i, fmt)] of
    its comparisons."""
    identical = identical_runs(runs)
    t = Tally()
    for i, (mode, kind, base, cand) in enumerate(comparisons(runs, modes)):
        r = res[(i, "perf")]
        m = "%d" % mode
        if kind == "aa":
            t.add(m + ":aa")
            t.add(m + ":aa_exit", r["exit"] == 1)
            t.add(m + ":aa_flags", sum(
                called(f["self"]) != 0 or called(f["total"]) != 0
                for f in r["funcs"].values()))
            if mode == 1:
                t.add(m + ":aa_poisson", bool(poisson(base[0], cand[0])))
                t.add(m + ":aa_truevar",
                      bool(truevar(base[0], cand[0], identical)))
            else:
                t.add(m + ":aa_welch", bool(welch(base, cand)))
            continue
        fn = planted_fn(prog, kind)
        want = 1 if programs.PAIRS[kind][3] > 0 else -1
        got = called(r["funcs"].get(fn, {}).get("self"))
        t.add(m + ":pl")
        t.add(m + ":pl_found", got == want)
        t.add(m + ":pl_wrong", got == -want or any(
            (called(f["self"]) == -want or called(f["total"]) == -want)
            and name == fn for name, f in r["funcs"].items()))
        # other functions' own time (their totals may hold the planted
        # function's: a caller's total that moved with it is no error)
        t.add(m + ":pl_flags", sum(
            called(f["self"]) != 0
            for name, f in r["funcs"].items() if name != fn))
        if got == want:
            t.add(m + ":pl_head", r["headline"].startswith(fn + " ") or
                  r["headline"].startswith(fn + "["))
        if mode == 1:
            for ref, calls in (("poisson", poisson(base[0], cand[0])),
                               ("truevar", truevar(base[0], cand[0],
                                                   identical))):
                hit = calls.get(fn) == want
                t.add(m + ":ref_" + ref, hit)
                t.add(m + ":both_" + ref, hit and got == want)
        else:
            hit = welch(base, cand).get(fn) == want
            t.add(m + ":ref_welch", hit)
            t.add(m + ":both_welch", hit and got == want)
        fmts = [f for f in FORMATS if (i, f) in res]
        if len(fmts) > 1:
            v = [called(res[(i, f)]["funcs"].get(fn, {}).get("self"))
                 for f in fmts]
            t.add(m + ":fmt_n")
            t.add(m + ":fmt_agree", len(set(v)) == 1)
    return t


def fmt_row(label, t, mode):
    m = "%d" % mode

    def pct(a, b):
        return "%d/%d" % (t.get(a), t.get(b)) if t.get(b) else "-"
    ref = "truevar" if mode == 1 else "welch"
    cols = [label,
            pct(m + ":aa_exit", m + ":aa"),
            "%.2f" % (t.get(m + ":aa_flags") / t.get(m + ":aa"))
            if t.get(m + ":aa") else "-",
            pct(m + ":pl_found", m + ":pl"),
            pct(m + ":both_" + ref, m + ":ref_" + ref),
            pct("1:both_poisson", "1:ref_poisson") if mode == 1 else "-",
            pct(m + ":pl_head", m + ":pl_found"),
            str(t.get(m + ":pl_wrong")),
            "%.2f" % (t.get(m + ":pl_flags") / t.get(m + ":pl"))
            if t.get(m + ":pl") else "-",
            pct(m + ":fmt_agree", m + ":fmt_n"),
            pct(m + (":aa_truevar" if mode == 1 else ":aa_welch"),
                m + ":aa")]
    return "| " + " | ".join(cols) + " |"


HEADER = ("| cell | A/A exit 1 | flags/A/A | planted found | of %s's finds"
          " | of Poisson's | headline | wrong way | other flags/pl |"
          " formats agree | ref A/A exit |\n|---|---|---|---|---|---|---|"
          "---|---|---|---|")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pd")
    ap.add_argument("work")
    ap.add_argument("--programs")
    ap.add_argument("--half", default="all")
    ap.add_argument("--states", default="quiet,load,heavy")
    ap.add_argument("--formats", default="perf")
    ap.add_argument("--modes", default="1,3")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json")
    ap.add_argument("extra", nargs="*")
    o = ap.parse_args()
    progs = o.programs.split(",") if o.programs else [
        p for p, x in programs.PROGRAMS.items()
        if o.half == "all" or x["half"] == o.half]
    modes = [int(x) for x in o.modes.split(",")]
    fmts = o.formats.split(",")
    cs = cells(o.work, progs, o.states.split(","))
    jobs = []
    for key, runs in cs.items():
        for i, (mode, kind, base, cand) in enumerate(
                comparisons(runs, modes)):
            for f in fmts:
                if f == "perf" or (mode == 1 and kind != "aa"):
                    jobs.append((key, i, f, base, cand))
    # derived files first, once each (the workers would race)
    for key, i, f, base, cand in jobs:
        for p in base + cand:
            derived(p, f)
            counts(p)
    res = {}
    with concurrent.futures.ThreadPoolExecutor(o.jobs) as ex:
        futs = {ex.submit(run_pd, o.pd, o.extra, b, c, f): (k, i, f)
                for k, i, f, b, c in jobs}
        for fu in concurrent.futures.as_completed(futs):
            k, i, f = futs[fu]
            res.setdefault(k, {})[(i, f)] = fu.result()
    tallies = {k: score_cell(k[0], cs[k], res[k], modes) for k in cs}
    for mode in modes:
        print("\n%d run%s a side\n" % (mode, "" if mode == 1 else "s"))
        print(HEADER % ("the true-variance reference" if mode == 1
                        else "Welch"))
        for half in ("tune", "held"):
            tot = Tally()
            for k in sorted(tallies):
                if programs.PROGRAMS[k[0]]["half"] != half:
                    continue
                print(fmt_row("%s %s" % k, tallies[k], mode))
                for key, v in tallies[k].n.items():
                    tot.add(key, v)
            if tot.n:
                print(fmt_row("**%s half**" % half, tot, mode))
    if o.json:
        with open(o.json, "w") as f:
            json.dump({"%s %s" % k: t.n for k, t in tallies.items()}, f,
                      indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
