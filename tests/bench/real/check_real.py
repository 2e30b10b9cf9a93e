#!/usr/bin/env python3
"""`perfdiff check` against a history, on the real-program benchmark
(tests/bench/real/README.md).

The histories are trend_real.py's (the same seeds): N commits of R runs
each drawn from every machine state, a step held for the last five
commits or none. Each is ingested once, then every PERFDIFF given checks
its last commit against its first, with the noise the history teaches:
on a null history exit 1 is a false alarm; on a step the planted
function's self verdict is counted found when it goes the planted way,
wrong when it goes the other, and exit 1 on the -25 % step (an
improvement) means something else was called a regression.

usage: check_real.py PERFDIFF[,PERFDIFF...] WORK [--programs a,b]
                     [--histories N] [--commits N] [--runs R]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
import programs  # noqa: E402
import score  # noqa: E402
import trend_real  # noqa: E402

KINDS = ("null", "p35", "m25")


def verdict(out, fn):
    """The self status of function fn in a JSON report, or None."""
    try:
        j = json.loads(out)
    except ValueError:
        return None
    for f in j.get("functions", []):
        if score.norm(f.get("function", "")) == fn:
            return f.get("self", {}).get("status")
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pds")
    ap.add_argument("work")
    ap.add_argument("--programs", default="lame,yaml,expat,flac")
    ap.add_argument("--histories", type=int, default=16)
    ap.add_argument("--commits", type=int, default=8)
    ap.add_argument("--runs", type=int, default=2)
    o = ap.parse_args()
    pds = o.pds.split(",")
    n, k = o.commits, o.commits - 5
    res = {}
    for prog in o.programs.split(","):
        runs = trend_real.runs_of(o.work, prog)
        for kind in KINDS:
            for seed in range(o.histories):
                commits = trend_real.commits_of(runs, prog, kind, seed, n,
                                                k, o.runs)
                if commits is None:
                    continue
                tmp = tempfile.mkdtemp(prefix="pdcheck.")
                try:
                    db = trend_real.history(pds[0], commits, tmp)
                    for pd in pds:
                        r = subprocess.run(
                            [pd, "check", "-f", "json", "--db", db,
                             "db:%s:s:warm" % trend_real.sha(0),
                             "db:%s:s:warm" % trend_real.sha(n - 1)],
                            capture_output=True, text=True)
                        t = res.setdefault((pd, prog, kind), [0, 0, 0, 0])
                        t[0] += 1
                        t[1] += r.returncode == 1
                        if kind == "null":
                            continue
                        want = "regressed" if programs.PAIRS[kind][3] > 0 \
                            else "improved"
                        v = verdict(r.stdout, score.planted_fn(prog, kind))
                        t[2] += v == want
                        t[3] += v in ("regressed", "improved") and v != want
                finally:
                    shutil.rmtree(tmp)
    print("| perfdiff | program | half | history | checks | exit 1 |"
          " planted found | wrong way |")
    print("|---|---|---|---|---|---|---|---|")
    for (pd, prog, kind), t in sorted(res.items()):
        print("| %s | %s | %s | %s | %d | %d | %s | %s |" % (
            pd, prog, programs.PROGRAMS[prog]["half"], kind, t[0], t[1],
            "-" if kind == "null" else t[2],
            "-" if kind == "null" else t[3]))


if __name__ == "__main__":
    main()
