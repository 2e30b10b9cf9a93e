#!/usr/bin/env python3
"""Verdicts of perfdiff on the shape recordings (tests/bench/record_shapes.sh).

For every shape (phased, interleaved, threads, recursion, shortlived) and
mode, a Markdown table:
  - modes: single pairs from the perf script text ("1 run, perf"), the
    same pairs from the folded stacks ("1 run, folded": no times, so no
    burst blocks), single pairs against a history ("1 run, history": the
    A runs a1 of the other rounds stored as earlier commits, round R's a1
    as the newest, `perfdiff check db:...` against the file), and 3 and 5
    runs a side (runs of consecutive rounds, `-b`/`-c`);
  - columns: the A/A exit-1 rate, A against its separately compiled
    identical rebuild (a1 : rb) and A against A (a1 : a2, a2 : a3);
    unchanged functions flagged (self or total regressed/improved) per A/A
    comparison; recall per planted build (the planted function's self
    verdict regressed for +N %, improved for -25 %); verdicts the wrong
    way; format agreement (the planted function's self verdict from the
    .perf.txt and the .folded of the same runs: the share of comparisons
    where they agree); and the share of the oracle's finds that perfdiff
    found too.
  - two oracles, computed here from the folded files: (i) single pairs: a
    per-function conditional binomial test of the self counts c_b, c_c
    with the two profiles' total (program) sample counts as exposure,
    two-sided, Benjamini-Hochberg over the program's functions (20 samples
    or more together) at 0.05, and the point ratio of the shares beyond
    5 %; (i') the same with equal exposures (the sampling period is the
    same on both sides: absolute counts, as perfdiff's default mode
    compares); (ii) several runs: Welch's t-test on per-run ln(count + 1/2), BH
    at 0.05, the point ratio exp(mean difference) beyond 5 %.
  - the machine-wide check: for A/A pairs (perf text, one run a side) the
    total's ratio, and the functions flagged when it moved more than 10 %.

Planted pairs compare each planted run with the unchanged run recorded
next to it in the same round: p10 with a1, p20 with a2, p35 with rb, m25
and the extra builds with a3 (with history: stored a1 with each).

With --dispersion FILE it also writes the run-to-run spread of each
function (variance of the per-run self counts over the A runs against
Poisson's) next to the within-run burst measure (time-block dispersion,
recomputed by tests/tools/block_dispersion.py, and perfdiff's own
burst_dispersion in the A/A pairs' JSON).

usage: tests/bench/shapes.py PERFDIFF DATADIR [--quick] [--no-history]
           [--shapes a,b] [--jobs N] [--dispersion FILE] [EXTRA-ARGS...]
  DATADIR holds SHAPE/NAME-R.perf.txt and .folded; EXTRA-ARGS go to every
  perfdiff comparison. --quick: the first 3 rounds (one pair per round, one group of 3), no history.
"""
import concurrent.futures
import glob
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from verdicts import moved, run as run_pd  # noqa: E402  (shared with verdicts.py)
import tempfile
import time

# planted builds: name -> (function, percent); baseline run of the round
PLAN = {
    "phased": {"p10": ("parse_record", 10), "p20": ("parse_record", 20),
               "p35": ("parse_record", 35), "m25": ("parse_record", -25)},
    "interleaved": {"p10": ("transform", 10), "p20": ("transform", 20),
                    "p35": ("transform", 35), "m25": ("transform", -25)},
    "threads": {"p10": ("hot_kernel", 10), "p20": ("hot_kernel", 20),
                "p35": ("hot_kernel", 35), "m25": ("hot_kernel", -25)},
    "recursion": {"p10": ("cpu_kernel", 10), "p20": ("cpu_kernel", 20),
                  "p35": ("cpu_kernel", 35), "m25": ("cpu_kernel", -25),
                  "memp20": ("chase", 20), "memp35": ("chase", 35)},
    "shortlived": {"p10": ("process_item", 10), "p20": ("process_item", 20),
                   "p35": ("process_item", 35), "m25": ("process_item", -25),
                   "gcp20": ("gc_collect", 20), "gcp35": ("gc_collect", 35)},
}
BASE = {"p10": "a1", "p20": "a2", "p35": "rb", "m25": "a3"}
MAIN = ("p10", "p20", "p35", "m25")
AA = (("a1", "rb", "A:A2"), ("a1", "a2", "A:A"), ("a2", "a3", "A:A"))
SUFFIX = re.compile(r"(\.(constprop|isra|part|cold|lto_priv)(\.\d+)?)+$")
THRESHOLD = math.log(1.05)
ALPHA = 0.05


def norm(name):
    return SUFFIX.sub("", name)


def is_system(name):
    return name.endswith("_[k]") or name.startswith("[")


# ---------------------------------------------------------------- counts

_counts = {}


def counts(path):
    """Self counts of the program's functions in a folded file, and the
    program's sample count (samples whose leaf is a system frame set
    apart, as perfdiff does by default)."""
    if path not in _counts:
        selfc, total = {}, 0
        with open(path) as f:
            for line in f:
                stack, _, n = line.rstrip("\n").rpartition(" ")
                leaf = stack.rsplit(";", 1)[-1]
                if is_system(leaf):
                    continue
                n = int(n)
                total += n
                leaf = norm(leaf)
                selfc[leaf] = selfc.get(leaf, 0) + n
        _counts[path] = (selfc, total)
    return _counts[path]


# ---------------------------------------------------------------- tests

def bh(ps):
    """Benjamini-Hochberg q values of a dict of p values."""
    order = sorted(ps, key=ps.get)
    q, run_min, m = {}, 1.0, len(order)
    for rank in range(m, 0, -1):
        run_min = min(run_min, ps[order[rank - 1]] * m / rank)
        q[order[rank - 1]] = run_min
    return q


def binom_two_sided(k, n, p):
    """Exact two-sided binomial p value: the probability of every outcome
    no more likely than k."""
    if n == 0:
        return 1.0
    lg = math.lgamma

    def logpmf(i):
        if p <= 0 or p >= 1:
            return 0.0 if i == round(n * p) else -math.inf
        return (lg(n + 1) - lg(i + 1) - lg(n - i + 1) + i * math.log(p)
                + (n - i) * math.log1p(-p))
    lo = logpmf(k) + 1e-7
    tot = 0.0
    for i in range(n + 1):
        v = logpmf(i)
        if v <= lo:
            tot += math.exp(v)
    return min(1.0, tot)


def betacf(a, b, x):
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1, a - 1
    c, d = 1.0, 1 - qab * x / qap
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c if abs(1 + aa / c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c if abs(1 + aa / c) > tiny else tiny
        dl = d * c
        h *= dl
        if abs(dl - 1) < 1e-12:
            break
    return h


def betainc(a, b, x):
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    lbt = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
           + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return math.exp(lbt) * betacf(a, b, x) / a
    return 1 - math.exp(lbt) * betacf(b, a, 1 - x) / b


def t_two_sided(t, df):
    return betainc(df / 2, 0.5, df / (df + t * t))


def oracle_single(bfile, cfile, absolute=False):
    """Oracle (i): {function: +1/-1} called changed in a single pair.
    absolute: equal exposures (one sampling period on both sides, as
    perfdiff's default absolute mode), rather than the total counts."""
    (sb, nb), (sc, nc) = counts(bfile), counts(cfile)
    if absolute:
        nb = nc = 1
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


def oracle_runs(bfiles, cfiles):
    """Oracle (ii): Welch's t on per-run ln(count + 1/2)."""
    sides = [[counts(p)[0] for p in fs] for fs in (bfiles, cfiles)]
    names = set()
    for side in sides:
        for s in side:
            names |= set(s)
    ps, diff = {}, {}
    for f in names:
        ys = [[math.log(s.get(f, 0) + 0.5) for s in side] for side in sides]
        if sum(sum(s.get(f, 0) for s in side) for side in sides) < 20:
            continue
        m = [statistics.fmean(y) for y in ys]
        v = [statistics.variance(y) / len(y) for y in ys]
        d = m[1] - m[0]
        se2 = v[0] + v[1]
        if se2 <= 0:
            ps[f] = 1.0 if d == 0 else 0.0
        else:
            df = se2 ** 2 / sum(x ** 2 / (len(y) - 1) for x, y in zip(v, ys))
            ps[f] = t_two_sided(d / math.sqrt(se2), df)
        diff[f] = d
    q = bh(ps) if ps else {}
    return {f: (1 if diff[f] > 0 else -1) for f in ps
            if q[f] < ALPHA and abs(diff[f]) > THRESHOLD}


# ---------------------------------------------------------------- perfdiff

def find(d, name):
    for f in d["functions"]:
        if norm(f["function"]) == name:
            return f
    return None


def self_status(d, name):
    f = find(d, name)
    return f["self"]["status"] if f else "absent"


def flagged(d):
    return sum(moved(f) for f in d["functions"] if not f.get("system"))


# ---------------------------------------------------------------- history

def make_histories(pd, sdir, rounds, jobs):
    """One history per round R: a1 of every other round stored as an
    earlier commit, a1-R as the newest; returns {R: (tmpdir, db, sha)}."""
    out = {}

    def one(r):
        tmp = tempfile.mkdtemp(prefix="pdshapes.")
        db = os.path.join(tmp, "h.db")
        bundles = []
        others = [x for x in rounds if x != r] + [r]
        for i, x in enumerate(others):
            b = os.path.join(tmp, "b%03d" % i)
            os.makedirs(os.path.join(b, "profiles"))
            with open(os.path.join(b, "build_meta.json"), "w") as f:
                json.dump({"git_sha": "%040x" % (0xbe9c000 + x),
                           "scenario": "shape", "cache": "warm",
                           "commit_date": "2026-01-01T00:%02d:%02dZ"
                           % (i // 60, i % 60)}, f)
            shutil.copy(os.path.join(sdir, "a1-%d.perf.txt" % x),
                        os.path.join(b, "profiles", "run.1.perf.txt"))
            bundles.append(b)
        subprocess.run([pd, "ingest", "--db", db] + bundles, check=True,
                       capture_output=True, cwd=tmp)
        return r, (tmp, db, "db:%040x:shape:warm" % (0xbe9c000 + r))
    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        for r, v in ex.map(one, rounds):
            out[r] = v
    return out


# ---------------------------------------------------------------- scoring

class Row:
    def __init__(self, label, variants):
        self.label = label
        self.aa = {"A:A2": [0, 0], "A:A": [0, 0]}  # [exit 1, pairs]
        self.flag = [0, 0]  # functions flagged, A/A comparisons
        self.found = {v: [0, 0] for v in variants}
        self.wrong = 0
        self.agree = [0, 0]
        self.of_oracle = [0, 0]  # perfdiff found / oracle found
        self.totals = []  # (total ratio, flagged) of A/A pairs

    def add_aa(self, kind, rc, nflag):
        self.aa[kind][0] += rc == 1
        self.aa[kind][1] += 1
        self.flag[0] += nflag
        self.flag[1] += 1

    def add_plant(self, v, pct, status, oracle=None):
        want, other = (("regressed", "improved") if pct > 0
                       else ("improved", "regressed"))
        self.found[v][0] += status == want
        self.found[v][1] += 1
        self.wrong += status == other
        if oracle:
            self.of_oracle[0] += status == want
            self.of_oracle[1] += 1


def frac(a, n):
    return "%d/%d" % (a, n) if n else "-"


def table(rows, variants, plan):
    head = ["mode", "A:A2 exit 1", "A:A exit 1", "flagged / A/A"]
    head += ["%s %s%+d%%" % (v, plan[v][0], plan[v][1]) for v in variants]
    head += ["wrong way", "perf = folded", "of oracle's finds"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [r.label, frac(*r.aa["A:A2"]), frac(*r.aa["A:A"]),
                 "%.2f" % (r.flag[0] / r.flag[1]) if r.flag[1] else "-"]
        cells += [frac(*r.found[v]) for v in variants]
        cells += [str(r.wrong), frac(*r.agree) if r.agree[1] else "-",
                  frac(*r.of_oracle) if r.of_oracle[1] else "-"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def score_shape(pd, extra, datadir, shape, rounds, history, jobs, pool):
    sdir = os.path.join(datadir, shape)
    plan = PLAN[shape]
    variants = [v for v in plan if all(
        os.path.exists(os.path.join(sdir, "%s-%d.perf.txt" % (v, r)))
        for r in rounds)]
    P = lambda n, r, ext="perf.txt": os.path.join(sdir, "%s-%d.%s" % (n, r, ext))
    base_of = lambda v: BASE.get(v, "a3")
    rows = {}

    def row(label):
        if label not in rows:
            rows[label] = Row(label, variants)
        return rows[label]

    # the comparisons: (mode, kind, variant or A/A label, base files, cand files)
    jobs_list = []
    groups = {1: [[r] for r in rounds]}
    for n in (3, 5):
        groups[n] = [rounds[g:g + n] for g in range(0, len(rounds) - n + 1, n)]
    for n, gs in groups.items():
        for rs in gs:
            for x, y, kind in AA:
                jobs_list.append((n, "aa", kind, [(x, r) for r in rs],
                                  [(y, r) for r in rs]))
            for v in variants:
                jobs_list.append((n, "plant", v, [(base_of(v), r) for r in rs],
                                  [(v, r) for r in rs]))
    tasks = {}
    for i, (n, what, v, bs, cs) in enumerate(jobs_list):
        for ext in ("perf.txt", "folded"):
            tasks[(i, ext)] = pool.submit(
                run_pd, pd, extra, [P(a, r, ext) for a, r in bs],
                [P(a, r, ext) for a, r in cs])
    hist = {}
    if history:
        hdb = make_histories(pd, sdir, rounds, jobs)
        for i, (n, what, v, bs, cs) in enumerate(jobs_list):
            if n != 1:
                continue
            r = bs[0][1]
            if what == "aa" and bs[0][0] != "a1":
                # with history the stored a1 is the baseline of every pair
                continue
            tmp, db, sha = hdb[r]
            hist[i] = pool.submit(run_pd, pd, ["--db", db] + list(extra),
                                  [sha], [P(cs[0][0], r)], ("check",))
        # A/A with history: stored a1 against a2, a3 and rb
        for r in rounds:
            tmp, db, sha = hdb[r]
            for y in ("a3",):
                hist[("aa3", r)] = pool.submit(
                    run_pd, pd, ["--db", db] + list(extra), [sha],
                    [P(y, r)], ("check",))
    aa_json = []  # (single perf A/A JSON) for the dispersion notes
    for i, (n, what, v, bs, cs) in enumerate(jobs_list):
        label = {1: "1 run, perf", 3: "3 runs, perf", 5: "5 runs, perf"}[n]
        flabel = {1: "1 run, folded", 3: "3 runs, folded",
                  5: "5 runs, folded"}[n]
        rc, d = tasks[(i, "perf.txt")].result()
        frc, fd = tasks[(i, "folded")].result()
        bf = [P(a, r, "folded") for a, r in bs]
        cf = [P(a, r, "folded") for a, r in cs]
        if n == 1:
            orc = oracle_single(bf[0], cf[0])
            olabel = "oracle (i) binomial, 1 run"
            abso = oracle_single(bf[0], cf[0], True)
            alabel = "oracle (i') binomial, equal exposure"
            if what == "aa":
                row(alabel).add_aa(v, int(1 in abso.values()), len(abso))
            else:
                fn, pct = plan[v]
                row(alabel).add_plant(v, pct, "regressed" if abso.get(fn) == 1
                                      else "improved" if abso.get(fn) == -1
                                      else "same")
        else:
            orc = oracle_runs(bf, cf)
            olabel = "oracle (ii) Welch, %d runs" % n
        if what == "aa":
            row(label).add_aa(v, rc, flagged(d))
            row(flabel).add_aa(v, frc, flagged(fd))
            row(olabel).add_aa(v, int(1 in orc.values()), len(orc))
            if n == 1:
                tot = d["total"].get("ratio")
                row(label).totals.append((tot, flagged(d)))
                aa_json.append(d)
            continue
        fn, pct = plan[v]
        sign = 1 if pct > 0 else -1
        ofound = orc.get(fn) == sign
        st, fst = self_status(d, fn), self_status(fd, fn)
        row(label).add_plant(v, pct, st, ofound)
        row(flabel).add_plant(v, pct, fst, ofound)
        row(olabel).add_plant(v, pct, "regressed" if orc.get(fn) == 1 else
                              "improved" if orc.get(fn) == -1 else "same")
        row(label).agree[0] += st == fst
        row(label).agree[1] += 1
        if i in hist:
            hrc, hd = hist[i].result()
            row("1 run, history").add_plant(v, pct, self_status(hd, fn), ofound)
    for i, (n, what, v, bs, cs) in enumerate(jobs_list):
        if i in hist and what == "aa":
            hrc, hd = hist[i].result()
            row("1 run, history").add_aa(v, hrc, flagged(hd))
    for r in rounds:
        if ("aa3", r) in hist:
            hrc, hd = hist[("aa3", r)].result()
            row("1 run, history").add_aa("A:A", hrc, flagged(hd))
    if history:
        for tmp, _, _ in hdb.values():
            shutil.rmtree(tmp)
    order = ["1 run, perf", "1 run, folded", "1 run, history",
             "oracle (i) binomial, 1 run",
             "oracle (i') binomial, equal exposure", "3 runs, perf", "3 runs, folded",
             "oracle (ii) Welch, 3 runs", "5 runs, perf", "5 runs, folded",
             "oracle (ii) Welch, 5 runs"]
    out = [rows[k] for k in order if k in rows]
    return out, variants, plan, aa_json


def machine_wide(row):
    tots = [(t, f) for t, f in row.totals if t]
    if not tots:
        return "no A/A pairs"
    dev = sorted(abs(t - 1) for t, _ in tots)
    big = [(t, f) for t, f in tots if abs(t - 1) > 0.10]
    return ("A/A pairs' total ratio: median |ratio - 1| %.1f %%, max %.1f %%;"
            " %d of %d pairs moved more than 10 %%, with %s functions flagged"
            % (100 * dev[len(dev) // 2], 100 * dev[-1], len(big), len(tots),
               "/".join(str(f) for _, f in big) if big else "no"))


# ---------------------------------------------------------------- dispersion

def load_blocks():
    """side() of tests/tools/block_dispersion.py, without running its main."""
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "..", "tools", "block_dispersion.py")
    src = open(path).read()
    src = re.sub(r"\nmain\(\)\s*$", "\n", src)
    ns = {"__name__": "block_dispersion"}
    exec(compile(src, path, "exec"), ns)
    return ns["side"]


def spearman(xs, ys):
    def ranks(v):
        o = sorted(range(len(v)), key=lambda i: v[i])
        r = [0.0] * len(v)
        for k, i in enumerate(o):
            r[i] = k
        return r
    rx, ry = ranks(xs), ranks(ys)
    return statistics.correlation(rx, ry) if len(xs) > 2 else float("nan")


def dispersion_notes(datadir, shape, rounds, aa_json):
    sdir = os.path.join(datadir, shape)
    side = load_blocks()
    runs = [(n, r) for r in rounds for n in ("a1", "a2", "a3", "rb")]
    per = {(n, r): counts(os.path.join(sdir, "%s-%d.folded" % (n, r)))[0]
           for n, r in runs}
    mean_all = {}
    for s in per.values():
        for f, c in s.items():
            mean_all[f] = mean_all.get(f, 0) + c / len(per)
    names = sorted((f for f, m in mean_all.items() if m >= 20),
                   key=lambda f: -mean_all[f])
    blocks = {}
    for n, r in runs:
        res, system = side(os.path.join(sdir, "%s-%d.perf.txt" % (n, r)), False)
        for f, v in res.items():
            if v.get("self"):
                x2, df = v["self"]
                blocks.setdefault(norm(f), []).append(x2 / df)
    raised = {}
    for d in aa_json:
        for f in d["functions"]:
            bd = f["self"].get("burst_dispersion")
            raised.setdefault(norm(f["function"]), []).append(bd)

    def D(vals):
        m = statistics.fmean(vals)
        return statistics.variance(vals) / m if m > 0 and len(vals) > 1 else float("nan")

    lines = ["| function | mean self samples | D all A runs | D unloaded | D loaded"
             " | D within round | extra-Poisson CV | block D (median of runs)"
             " | perfdiff raised in A/A pairs (median D~) |",
             "|---|---|---|---|---|---|---|---|---|"]
    pts = []
    for f in names:
        vals = [per[k].get(f, 0) for k in runs]
        un = [per[(n, r)].get(f, 0) for n, r in runs if r % 2 == 1]
        lo = [per[(n, r)].get(f, 0) for n, r in runs if r % 2 == 0]
        # within a round: the pooled variance of each round's four runs
        ss = dfw = 0
        for r in rounds:
            v = [per[(n, r)].get(f, 0) for n in ("a1", "a2", "a3", "rb")]
            mu = statistics.fmean(v)
            ss += sum((x - mu) ** 2 for x in v)
            dfw += len(v) - 1
        m = statistics.fmean(vals)
        dw = (ss / dfw) / m if m > 0 else float("nan")
        cv = math.sqrt(max(0.0, statistics.variance(vals) - m)) / m
        b = blocks.get(f, [])
        bmed = statistics.median(b) if b else float("nan")
        rs = raised.get(f, [])
        got = [x for x in rs if x is not None]
        lines.append("| %s | %.0f | %.2f | %.2f | %.2f | %.2f | %.1f %% | %s | %s |" % (
            f, m, D(vals), D(un) if un else float("nan"),
            D(lo) if lo else float("nan"), dw, 100 * cv,
            "%.2f" % bmed if b else "-",
            "%d of %d%s" % (len(got), len(rs),
                            " (%.1f)" % statistics.median(got) if got else "")))
        if b:
            pts.append((bmed, D(vals), dw))
    return "\n".join(lines), pts


# ---------------------------------------------------------------- main

def main():
    argv = sys.argv[1:]
    if len(argv) < 2:
        sys.exit(__doc__)
    pd, datadir, rest = argv[0], argv[1], argv[2:]
    quick = False
    history = True
    jobs = 2
    shapes = list(PLAN)
    disp_out = None
    extra = []
    i = 0
    while i < len(rest):
        a = rest[i]
        if a == "--quick":
            quick = True
        elif a == "--no-history":
            history = False
        elif a == "--jobs":
            i += 1
            jobs = int(rest[i])
        elif a == "--shapes":
            i += 1
            shapes = rest[i].split(",")
        elif a == "--dispersion":
            i += 1
            disp_out = rest[i]
        else:
            extra.append(a)
        i += 1
    if quick:
        history = False
    t0 = time.time()
    overall = {}
    disp = []
    allpts = []
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for shape in shapes:
            sdir = os.path.join(datadir, shape)
            rounds = sorted(int(m.group(1)) for m in (
                re.match(r"a1-(\d+)\.perf\.txt$", os.path.basename(p))
                for p in glob.glob(os.path.join(sdir, "a1-*.perf.txt"))) if m)
            rounds = [r for r in rounds if all(os.path.exists(
                os.path.join(sdir, "%s-%d.folded" % (n, r)))
                for n in ["a2", "a3", "rb"] + list(PLAN[shape]))]
            if quick:
                rounds = rounds[:3]
            if not rounds:
                print("## %s: no recordings\n" % shape)
                continue
            rows, variants, plan, aa_json = score_shape(
                pd, extra, datadir, shape, rounds, history, jobs, pool)
            print("## %s (%d rounds)\n" % (shape, len(rounds)))
            print(table(rows, variants, plan))
            print()
            print("Machine-wide (1 run, perf): " + machine_wide(rows[0]))
            print()
            sys.stdout.flush()
            for r in rows:
                o = overall.setdefault(r.label, Row(r.label, list(MAIN)))
                for k in r.aa:
                    o.aa[k][0] += r.aa[k][0]
                    o.aa[k][1] += r.aa[k][1]
                o.flag[0] += r.flag[0]
                o.flag[1] += r.flag[1]
                for v in MAIN:
                    if v in r.found:
                        o.found[v][0] += r.found[v][0]
                        o.found[v][1] += r.found[v][1]
                o.wrong += r.wrong
                o.agree[0] += r.agree[0]
                o.agree[1] += r.agree[1]
                o.of_oracle[0] += r.of_oracle[0]
                o.of_oracle[1] += r.of_oracle[1]
            if disp_out:
                t, pts = dispersion_notes(datadir, shape, rounds, aa_json)
                disp.append("## %s (%d rounds, %d A runs)\n\n%s\n"
                            % (shape, len(rounds), 4 * len(rounds), t))
                allpts += [(shape,) + p for p in pts]
    if overall:
        print("## overall (all shapes; planted columns: the main planted"
              " function of each shape)\n")
        plan = {v: ("", p) for v, p in zip(MAIN, (10, 20, 35, -25))}
        print(table(list(overall.values()), list(MAIN), plan))
        print()
    print("scored in %.0f s" % (time.time() - t0))
    if disp_out:
        with open(disp_out, "w") as f:
            f.write("\n".join(disp))
            if allpts:
                f.write("\nSpearman rank correlation over all functions of all"
                        " shapes (%d): block D vs D over all A runs %.2f;"
                        " block D vs D within round %.2f\n" % (
                            len(allpts),
                            spearman([p[1] for p in allpts], [p[2] for p in allpts]),
                            spearman([p[1] for p in allpts], [p[3] for p in allpts])))


if __name__ == "__main__":
    main()
