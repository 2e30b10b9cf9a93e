#!/usr/bin/env python3
"""Verdicts on real recordings (docs/statistics.md, "calibration").

Reads the recordings tests/bench/record_mixed.sh made (OUTDIR/a-R-K and
OUTDIR/pF-R) and runs perfdiff on them:
  - A/A: the three unchanged recordings of each round, as consecutive
    pairs: how many pairs exit 1, how many of the program's functions are
    flagged per pair (self or total, regressed or improved);
  - planted changes: +PCT % in f00, f01 and f08, found (self regressed)
    with 1, 3 and 5 runs per side (runs of consecutive rounds), and
    verdicts in the wrong direction (the planted function improved).
Prints a Markdown table. Not a test: a measurement.

The oracle column: the same decision (BH across the program's functions,
the 95 % interval beyond the threshold; with --treat among the extra
arguments BH over p values against the threshold and the selected ones'
adjusted interval beyond it) made with each function's true
run-to-run variance of ln(count), measured over all unchanged runs: what
a test that knew every function's noise would find.

With --history, the unchanged run a-R-1 of every round is stored as a
commit of its own, and each pair compares stored a-R-1 (check db:...)
with the file (A/A: a-R-2 and a-R-3): one run per side, the noise
learned from the other commits of the history.

Under each A/A table: the share of the functions' self p values below
0.05, 0.01 and 0.002, and how many pairs the oracle would exit 1 on. A noise model that holds puts that share of them
there; more means its noise is too small, and then the exit rate's bound
(statistics.md, "The exit status's error rate") does not hold either.

usage: tests/bench/verdicts.py PERFDIFF OUTDIR [--history] [EXTRA-ARGS...]
"""
import glob
import json
import math
import os
import re
from statistics import NormalDist
import shutil
import subprocess
import sys
import tempfile


def run(pd, extra, base, cand, cmd=()):
    args = [pd] + list(cmd) + ["-f", "json"] + extra
    if len(base) == 1 and len(cand) == 1:
        args += [base[0], cand[0]]
    else:
        for b in base:
            args += ["-b", b]
        for c in cand:
            args += ["-c", c]
    r = subprocess.run(args, capture_output=True, text=True)
    if cmd and r.returncode == 125:  # check: inconclusive
        return 0, json.loads(r.stdout)
    if r.returncode > 1:
        sys.exit("perfdiff failed: " + r.stderr)
    return r.returncode, json.loads(r.stdout)


def moved(f):
    st = {f["self"]["status"], (f.get("total") or {}).get("status")}
    return bool(st & {"regressed", "improved"})


def nulls(d):
    """The self p values of the program's functions in an A/A comparison
    (20 samples or more on the baseline, system frames set apart)."""
    return [f["self"]["p"] for f in d["functions"]
            if not f.get("system") and f["self"].get("p") is not None
            and (f["self"].get("baseline_samples") or 0) >= 20]


def calibration(label, ps):
    """Under a noise model that holds, a share a of the A/A p values lies
    below a; more says the model's noise is too small."""
    if ps:
        print("| ... p values below 0.05 / 0.01 / 0.002 (%s, %d) | %s |"
              % (label, len(ps), " / ".join(
                  "%.1f %%" % (100.0 * sum(p < a for p in ps) / len(ps))
                  for a in (0.05, 0.01, 0.002))))


def planted(d, name):
    for f in d["functions"]:
        if re.match(name + r"(\.constprop\.0)?$", f["function"]):
            return f["self"]
    return {"status": "absent", "mde_pct": None}


_cache = {}


def logcount(pd, path, name, cache=_cache):
    """ln(self samples + 1/2) of a function in one recording."""
    if path not in cache:
        r = subprocess.run([pd, "show", "-f", "json", path],
                           capture_output=True, text=True)
        cache[path] = {re.sub(r"\.constprop\.0$", "", f["function"]):
                       f["self_samples"] for f in json.loads(r.stdout)["functions"]}
    return math.log(cache[path].get(name, 0) + 0.5)


def make_history(pd, out, rounds, path):
    """A history of one run a commit: a-R-1 of every round, commit R."""
    tmp = tempfile.mkdtemp(prefix="pdverdicts.")
    db = os.path.join(tmp, "h.db")
    bundles = []
    for r in rounds:
        b = os.path.join(tmp, "b%03d" % r)
        os.makedirs(os.path.join(b, "profiles"))
        with open(os.path.join(b, "build_meta.json"), "w") as f:
            json.dump({"git_sha": "%040x" % (0xc0ffee000 + r), "scenario": "mixed",
                       "cache": "warm",
                       "commit_date": "2026-01-01T00:%02d:%02dZ" % (r // 60, r % 60)}, f)
        shutil.copy(path("a-%d-1.perf.txt" % r),
                    os.path.join(b, "profiles", "run.1.perf.txt"))
        bundles.append(b)
    subprocess.run([pd, "ingest", "--db", db] + bundles, check=True,
                   capture_output=True)
    return tmp, db


def main():
    pd, out, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
    history = "--history" in extra
    extra = [x for x in extra if x != "--history"]
    plants = sorted({int(m.group(1)) for m in
                     (re.match(r"p(\d+)-\d+\.perf\.txt$", os.path.basename(p))
                      for p in glob.glob(os.path.join(out, "p*-*.perf.txt")))
                     if m})
    last = "p%d-%%s.perf.txt" % plants[-1]
    rounds = sorted({int(m.group(1)) for m in
                     (re.match(r"a-(\d+)-1\.perf\.txt$", os.path.basename(p))
                      for p in glob.glob(os.path.join(out, "a-*-1.perf.txt")))
                     if m and os.path.exists(os.path.join(out, last % m.group(1)))})
    path = lambda n: os.path.join(out, n)
    per_round = len(plants)
    ex = lambda n: os.path.exists(path(n))
    tmp = db = None
    if history:
        tmp, db = make_history(pd, out, rounds, path)
    sha = lambda r: "db:%040x:mixed:warm" % (0xc0ffee000 + r)

    def pair(r, y):
        """One pair: a-R-1 stored (history) or as a file, against y."""
        if history:
            return run(pd, ["--db", db] + extra, [sha(r)], [path(y)],
                       ("check",))
        return run(pd, extra, [path("a-%d-1.perf.txt" % r)], [path(y)])

    # The oracle knows every function's run-to-run variance of ln(count),
    # measured over all unchanged runs; it tests the program's functions
    # with it, BH across them, and decides as perfdiff does.
    arun = [path("a-%d-%d.perf.txt" % (r, j)) for r in rounds
            for j in range(1, per_round + 1) if ex("a-%d-%d.perf.txt" % (r, j))]
    logcount(pd, arun[0], "main")
    names = [n for n, c in _cache[arun[0]].items() if c >= 20
             and not n.startswith(("[", "_", "asm_", "clear_page", "exc_"))]
    var = {}
    for nm in names:
        ys = [logcount(pd, a, nm) for a in arun]
        mu = sum(ys) / len(ys)
        var[nm] = sum((y - mu) ** 2 for y in ys) / (len(ys) - 1)

    delta = math.log(1.05)
    treat = "--treat" in extra

    def oracle_regressed(base, cand, n):
        """The functions the oracle calls regressed."""
        ps, Ls = {}, {}
        for nm in names:
            L = (sum(logcount(pd, c, nm) for c in cand) -
                 sum(logcount(pd, b, nm) for b in base)) / n
            se = math.sqrt(2 * var[nm] / n)
            # with --treat against the threshold: |L| <= ln 1.05 is the null
            ps[nm] = min(1.0, math.erfc((abs(L) - (delta if treat else 0))
                                        / se / math.sqrt(2)))
            Ls[nm] = (L, se)
        order = sorted(ps, key=ps.get)
        q, run_min = {}, 1.0
        for rank in range(len(order), 0, -1):
            run_min = min(run_min, ps[order[rank - 1]] * len(order) / rank)
            q[order[rank - 1]] = run_min
        sel = sum(1 for v in q.values() if v < 0.05)
        z = NormalDist().inv_cdf(1 - sel * 0.05 / (2 * len(order))) if treat \
            else 1.959963984540054
        return {nm for nm in names
                if q[nm] < 0.05 and Ls[nm][0] - z * Ls[nm][1] > delta}

    def oracle(base, cand, f, n):
        return f in oracle_regressed(base, cand, n)

    print("| measure | value |")
    print("|---|---|")
    # A/A within a round (interleaved, back to back) and across rounds
    # (another load, as from one night to the next)
    kinds = ("within a round", "across rounds") if not history else ("within a round",)
    for kind in kinds:
        pairs = exits = flagged = oexits = 0
        ps = []
        for i, r in enumerate(rounds):
            if kind == "within a round":
                todo = [(r, k) for k in range(1, per_round)
                        if ex("a-%d-%d.perf.txt" % (r, k + 1))]
                todo = [("a-%d-%d" % (r, k), "a-%d-%d" % (r, k + 1)) for r, k in todo]
                if history:  # every later unchanged run against stored a-R-1
                    todo = [("a-%d-1" % r, y) for _, y in todo]
            elif i + 1 < len(rounds):
                todo = [("a-%d-%d" % (r, k), "a-%d-%d" % (rounds[i + 1], k))
                        for k in range(1, per_round + 1)]
            else:
                todo = []
            for x, y in todo:
                if history:
                    rc, d = pair(r, y + ".perf.txt")
                else:
                    rc, d = run(pd, extra, [path(x + ".perf.txt")],
                                [path(y + ".perf.txt")])
                pairs += 1
                exits += rc == 1
                flagged += sum(1 for f in d["functions"]
                               if moved(f) and not f.get("system"))
                ps += nulls(d)
                oexits += bool(oracle_regressed([path(x + ".perf.txt")],
                                                [path(y + ".perf.txt")], 1))
        print("| A/A pairs %s%s | %d |" % (kind, " (with history)" if history else "", pairs))
        print("| ... that exit 1 | %d (%.1f %%) |"
              % (exits, 100.0 * exits / max(pairs, 1)))
        print("| ... functions flagged per pair | %.3f |"
              % (flagged / max(pairs, 1)))
        calibration("functions' self", ps)
        print("| ... that exit 1 for the oracle | %d (%.1f %%) |"
              % (oexits, 100.0 * oexits / max(pairs, 1)))
    # A/A with several runs per side: runs 1 and 2 of consecutive rounds
    for n in (3, 5) if per_round > 1 and not history else ():
        pairs = exits = flagged = 0
        for g in range(0, len(rounds) - n + 1, n):
            rs = rounds[g:g + n]
            rc, d = run(pd, extra, [path("a-%d-1.perf.txt" % r) for r in rs],
                        [path("a-%d-2.perf.txt" % r) for r in rs])
            pairs += 1
            exits += rc == 1
            flagged += sum(1 for f in d["functions"]
                           if moved(f) and not f.get("system"))
        print("| A/A, %d runs per side | %d comparisons, %d exit 1, %.2f functions flagged each |"
              % (n, pairs, exits, flagged / max(pairs, 1)))
    print()
    print("| planted change | runs per side | found | wrong direction | median MDE | oracle found |")
    print("|---|---|---|---|---|---|")
    pct = float(os.environ.get("PCT", "20"))
    promise = kept = at_mde = found_mde = 0
    for k, fnum in enumerate(plants, 1):
        f = "f%02d" % fnum
        plant = "p%d" % fnum
        for n in (1, 3, 5) if not history else (1,):
            found = wrong = tries = ofound = 0
            mdes = []
            for g in range(0, len(rounds) - n + 1, n):
                rs = rounds[g:g + n]
                base = [path("a-%d-%d.perf.txt" % (r, k)) for r in rs]
                cand = [path("%s-%d.perf.txt" % (plant, r)) for r in rs]
                if history:
                    _, d = pair(rs[0], cand[0])
                else:
                    _, d = run(pd, extra, base, cand)
                m = planted(d, f)
                st = m["status"]
                if m["mde_pct"] is not None:
                    mdes.append(m["mde_pct"])
                    # the MDE promise: a change of 1.5 MDE or more is found
                    if pct >= 1.5 * m["mde_pct"]:
                        promise += 1
                        kept += st == "regressed"
                    # and one at the MDE is found with 80 % power
                    if pct >= m["mde_pct"]:
                        at_mde += 1
                        found_mde += st == "regressed"
                tries += 1
                found += st == "regressed"
                wrong += st == "improved"
                ofound += oracle(base, cand, f, n)
            mdes.sort()
            print("| +%g %% %s | %d | %d of %d (%.0f %%) | %d | %s | %d (%.0f %%) |"
                  % (pct, f, n, found, tries, 100.0 * found / max(tries, 1),
                     wrong, "%.0f %%" % mdes[len(mdes) // 2] if mdes else "-",
                     ofound, 100.0 * ofound / max(tries, 1)))
    print()
    print("Planted changes at least the reported MDE: %d, found: %d"
          " (the MDE promises 80 %%)" % (at_mde, found_mde))
    print()
    print("Planted changes at least 1.5 times the reported MDE: %d, found: %d"
          % (promise, kept))
    if tmp:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
