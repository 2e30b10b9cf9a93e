#!/usr/bin/env python3
"""Trends on the real-program benchmark (tests/bench/real/README.md).

Histories made of the recordings record.sh wrote: N commits (default 8)
of R runs each (default 3), every run drawn (seeded) from the program's
rounds of every machine state, as nights differ:
  step     commits 0 .. K-1 of the base build, K .. N-1 of the planted
           one (p20, p35: +20 %, +35 %; m25: pad, then a: -25 %); K = N - 5
           by default, a change held five commits
  null     every commit of the unchanged builds (a and rb)
Each history is ingested into its own SQLite file and `perfdiff trend
--scenario s -f json` judges it: a step is found when the planted
function's series has a change point at commit K in the right
direction; a change point anywhere else, or a function other than the
planted one with a change point (when only the total, not the planted
function, moved, that is said apart), counts against it. A null history
is quiet when no series has a change point.

The same histories are bisected twice: `perfdiff culprit` names the first
bad (or first improved) commit of the latest change point, right when it
is commit K; and a git bisect run of `perfdiff check` against commit 0
(commit 0 good, the last commit bad; 125 skips a commit) ends on commit
K, right, or elsewhere, wrong, or among commits every one of which
checked inconclusive (skipped: git bisect cannot name one). On a null
history both should find
nothing: culprit no change point, and check not calling the last commit
bad.

usage: trend_real.py PERFDIFF WORK [--programs a,b] [--half H]
                     [--histories N] [--commits N] [--runs R] [--jobs J]
"""
import argparse
import concurrent.futures
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
import programs  # noqa: E402
import score  # noqa: E402


def runs_of(work, prog):
    """build -> every recorded run of it, all states."""
    out = {}
    for s in ("quiet", "load", "heavy"):
        cs = score.cells(work, [prog], [s])
        for b, rs in cs.get((prog, s), {}).items():
            out.setdefault(b, []).extend(rs[r] for r in sorted(rs))
    return out


def history(pd, commits, tmp):
    """commits: [[run paths]] oldest first; returns the db path."""
    db = os.path.join(tmp, "h.db")
    bundles = []
    for i, runs in enumerate(commits):
        b = os.path.join(tmp, "c%03d" % i)
        os.makedirs(os.path.join(b, "profiles"))
        with open(os.path.join(b, "build_meta.json"), "w") as f:
            json.dump({"git_sha": sha(i),
                       "scenario": "s", "cache": "warm",
                       "commit_date": "2026-01-%02dT00:00:00Z" % (i + 1)}, f)
        for k, r in enumerate(runs):
            shutil.copy(r, os.path.join(b, "profiles",
                                        "run.%d.perf.txt.gz" % (k + 1)))
        bundles.append(b)
    subprocess.run([pd, "ingest", "--db", db] + bundles, check=True,
                   capture_output=True)
    return db


def judge(pd, db):
    r = subprocess.run([pd, "trend", "--db", db, "--scenario", "s", "-f",
                        "json"], capture_output=True, text=True)
    if r.returncode > 1:
        sys.exit("trend failed: " + r.stderr)
    return json.loads(r.stdout)


def sha(i):
    return "%040x" % (0xbeef0000 + i)


def culprit(pd, db, improvement):
    """The first bad (or first improved) commit culprit names, or None."""
    r = subprocess.run([pd, "culprit", "--db", db, "--scenario", "s"] +
                       (["--improvements"] if improvement else []),
                       capture_output=True, text=True)
    for line in r.stdout.splitlines():
        for lead in ("first bad: ", "first improved: "):
            if line.startswith(lead):
                return line[len(lead):].strip()
    return None


def check(pd, db, good, cand):
    """perfdiff check of stored commit cand against good: its exit."""
    return subprocess.run([pd, "check", "--db", db,
                           "db:%s:s:warm" % sha(good),
                           "db:%s:s:warm" % sha(cand)],
                          capture_output=True).returncode


def bisect(pd, db, n):
    """git bisect run with perfdiff check as its test, commit 0 good and
    commit n - 1 bad: the first bad commit it ends on, "not bad" when
    the last commit does not check bad against the first, or None when
    every commit left to test was skipped (125, inconclusive). A skipped
    commit is passed over as git bisect skip does: the nearest other one
    between the bounds is tested instead."""
    if check(pd, db, 0, n - 1) != 1:
        return "not bad"
    lo, hi = 0, n - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        order = sorted(range(lo + 1, hi), key=lambda c: (abs(c - mid), c))
        for c in order:
            rc = check(pd, db, 0, c)
            if rc == 125:
                continue
            if rc == 1:
                hi = c
            else:
                lo = c
            break
        else:
            return None
    return hi


def changes(d):
    """series name -> [(commit index, change)] of its change points."""
    out = {}
    for s in d.get("series", []):
        name = "total" if s["kind"] == "total" else \
            score.norm(s["name"].split(" [")[0])
        out[name] = [(c["index"], c["change_pct"])
                     for c in s.get("change_points", [])]
    return out


def commits_of(runs, prog, kind, seed, n, k, reps):
    """The runs of each of the n commits of history (prog, kind, seed),
    oldest first, drawn (seeded) from runs (runs_of); None when the
    recordings hold too few for reps a commit."""
    rng = random.Random("%s-%s-%d" % (prog, kind, seed))
    if kind == "null":
        pool = runs.get("a", []) + runs.get("rb", [])
        rng.shuffle(pool)
        commits = [pool[i * reps:(i + 1) * reps] for i in range(n)]
    else:
        base, cand, _, _ = programs.PAIRS[kind]
        b = list(runs.get(base, []))
        c = list(runs.get(cand, []))
        if base == "a":
            b += runs.get("rb", [])
        if cand == "a":
            c += runs.get("rb", [])
        rng.shuffle(b)
        rng.shuffle(c)
        commits = [b[i * reps:(i + 1) * reps] for i in range(k)] + \
            [c[i * reps:(i + 1) * reps] for i in range(n - k)]
    if any(len(x) < reps for x in commits):
        return None
    return commits


def one(pd, work, prog, kind, seed, n, k, reps):
    commits = commits_of(runs_of(work, prog), prog, kind, seed, n, k, reps)
    if commits is None:
        return None
    tmp = tempfile.mkdtemp(prefix="pdtrend.")
    try:
        db = history(pd, commits, tmp)
        d = judge(pd, db)
        down = kind != "null" and programs.PAIRS[kind][3] < 0
        named = culprit(pd, db, down)
        bis = bisect(pd, db, n) if not down else None
    finally:
        shutil.rmtree(tmp)
    ch = changes(d)
    if kind == "null":
        return {"quiet": not any(ch.values()),
                "points": sum(len(v) for v in ch.values()),
                "culprit_quiet": named is None,
                "bisect_quiet": bis == "not bad"}
    fn = score.planted_fn(prog, kind)
    want = 1 if programs.PAIRS[kind][3] > 0 else -1
    hit = any(at == k and (c > 0) == (want > 0) for at, c in ch.get(fn, []))
    wrong = sum(1 for name, v in ch.items() for at, c in v
                if name not in (fn, "total") or at != k
                or (name == fn and (c > 0) != (want > 0)))
    return {"found": hit, "wrong": wrong,
            "total_only": not hit and any(at == k for at, _ in
                                          ch.get("total", [])),
            "culprit": named == sha(k),
            "culprit_wrong": named is not None and named != sha(k),
            "bisect": None if down else bis == k,
            "bisect_wrong": None if down else
            (bis not in (k, "not bad", None)),
            "bisect_skipped": not down and bis is None}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pd")
    ap.add_argument("work")
    ap.add_argument("--programs")
    ap.add_argument("--half", default="all")
    ap.add_argument("--histories", type=int, default=4)
    ap.add_argument("--commits", type=int, default=8)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=2)
    o = ap.parse_args()
    progs = o.programs.split(",") if o.programs else [
        p for p, x in programs.PROGRAMS.items()
        if o.half == "all" or x["half"] == o.half]
    k = o.commits - 5
    jobs = [(p, kind, s) for p in progs
            for kind in ("null", "p35", "p20", "m25")
            for s in range(o.histories)]
    res = {}
    with concurrent.futures.ThreadPoolExecutor(o.jobs) as ex:
        futs = {ex.submit(one, o.pd, o.work, p, kind, s, o.commits, k,
                          o.runs): (p, kind, s) for p, kind, s in jobs}
        for f in concurrent.futures.as_completed(futs):
            res[futs[f]] = f.result()
    print("| program | null quiet | +35 % found | +20 % found | -25 % found"
          " | change points elsewhere | only the total |")
    print("|---|---|---|---|---|---|---|")
    for half in ("tune", "held"):
        tot = {}
        for p in progs:
            if programs.PROGRAMS[p]["half"] != half:
                continue
            row = [p]
            for kind in ("null", "p35", "p20", "m25"):
                rs = [res[(p, kind, s)] for s in range(o.histories)
                      if res.get((p, kind, s))]
                key = "quiet" if kind == "null" else "found"
                hit = sum(r[key] for r in rs)
                row.append("%d/%d" % (hit, len(rs)))
                t = tot.setdefault(kind, [0, 0])
                t[0] += hit
                t[1] += len(rs)
            wr = sum(res[(p, kind, s)]["wrong"] for kind in ("p35", "p20",
                                                               "m25")
                     for s in range(o.histories) if res.get((p, kind, s)))
            to = sum(res[(p, kind, s)]["total_only"] for kind in
                     ("p35", "p20", "m25") for s in range(o.histories)
                     if res.get((p, kind, s)))
            row += [str(wr), str(to)]
            print("| " + " | ".join(row) + " |")
        if tot:
            print("| **%s half** | " % half + " | ".join(
                "%d/%d" % tuple(tot[k]) for k in ("null", "p35", "p20",
                                                   "m25")) + " | | |")
    bisect_table(res, progs, o.histories)


def bisect_table(res, progs, histories):
    """culprit's first bad commit and a git bisect run of perfdiff check,
    per program: right / histories, and wrong commits named."""
    print()
    print("| program | culprit quiet on null | culprit right: +35 % | +20 %"
          " | -25 % | culprit wrong | bisect quiet on null | bisect right:"
          " +35 % | +20 % | bisect wrong | bisect left to skipped commits |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for half in ("tune", "held"):
        tot = {}
        for p in progs:
            if programs.PROGRAMS[p]["half"] != half:
                continue
            got = {kind: [res[(p, kind, s)] for s in range(histories)
                          if res.get((p, kind, s))]
                   for kind in ("null", "p35", "p20", "m25")}
            cells = [("null", "culprit_quiet"), ("p35", "culprit"),
                     ("p20", "culprit"), ("m25", "culprit")]
            row = [p]
            for kind, key in cells:
                hit = sum(r[key] for r in got[kind])
                row.append("%d/%d" % (hit, len(got[kind])))
                t = tot.setdefault(key + kind, [0, 0])
                t[0] += hit
                t[1] += len(got[kind])
            row.append(str(sum(r["culprit_wrong"] for kind in
                               ("p35", "p20", "m25") for r in got[kind])))
            for kind, key in (("null", "bisect_quiet"), ("p35", "bisect"),
                              ("p20", "bisect")):
                hit = sum(bool(r[key]) for r in got[kind])
                row.append("%d/%d" % (hit, len(got[kind])))
                t = tot.setdefault(key + kind, [0, 0])
                t[0] += hit
                t[1] += len(got[kind])
            row.append(str(sum(bool(r["bisect_wrong"]) for kind in
                               ("p35", "p20") for r in got[kind])))
            row.append(str(sum(bool(r["bisect_skipped"]) for kind in
                               ("p35", "p20") for r in got[kind])))
            print("| " + " | ".join(row) + " |")
        if tot:
            v = ["%d/%d" % tuple(x) for x in tot.values()]
            print("| **%s half** | " % half +
                  " | ".join(v[:4] + [""] + v[4:] + ["", ""]) + " |")


if __name__ == "__main__":
    main()
