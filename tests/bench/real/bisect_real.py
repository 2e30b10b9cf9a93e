#!/usr/bin/env python3
"""Bisects with scripts/bisect-perf.sh and its defaults on the real
programs of the benchmark (tests/bench/real/README.md).

For a program and a culprit place K, a git history of N commits (default
8) whose commits 0 .. K-1 name the unchanged build a and K .. N-1 the
planted build p35 (+35 % of site 0's self instructions, by callgrind);
the build step is nothing, the run command runs the build the checkout
names. Commit 0's three runs (perf record -F 1999 -g, as record.sh) are
stored in a fresh history; then

  git bisect start <commit N-1> <commit 0>
  git bisect run scripts/bisect-perf.sh --build true --run CMD \\
      --baseline db:<commit 0>:s:warm --function SITE0

with nothing else: the script records the baseline's commit and the
checkout in turn, 3 runs a side and more until perfdiff check decides.
A bisect is right when git names commit K first bad, wrong when it names
another, undecided when it ends among skipped commits. Each bisect's
steps, runs and time are kept.

usage: bisect_real.py PERFDIFF WORK [--programs a,b] [--places 2,4,5]
                      [--commits N] [--out FILE.tsv]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, HERE)
import programs  # noqa: E402


def git(repo, *args):
    return subprocess.run(["git", "-C", repo] + list(args), check=True,
                          capture_output=True, text=True).stdout.strip()


def history(repo, n, k):
    """The repository: commit i names build a before k, p35 from it."""
    os.makedirs(repo)
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "bench@example.org")
    git(repo, "config", "user.name", "bench")
    shas = []
    for i in range(n):
        with open(os.path.join(repo, "build"), "w") as f:
            f.write("a\n" if i < k else "p35\n")
        with open(os.path.join(repo, "n"), "w") as f:
            f.write("%d\n" % i)
        git(repo, "add", "build", "n")
        git(repo, "commit", "-q", "-m", "commit %d" % i,
            "--date", "2026-01-%02dT00:00:00Z" % (i + 1))
        shas.append(git(repo, "rev-parse", "HEAD"))
    return shas


def store_baseline(pd, db, tmp, cmd, sha):
    """Three runs of commit 0's build stored as db:sha:s:warm."""
    b = os.path.join(tmp, "base")
    os.makedirs(os.path.join(b, "profiles"))
    with open(os.path.join(b, "build_meta.json"), "w") as f:
        f.write('{"git_sha": "%s", "scenario": "s", "cache": "warm",'
                ' "commit_date": "2026-01-01T00:00:00Z"}\n' % sha)
    subprocess.run(["sh", "-c", cmd + " >/dev/null"], check=True)
    for r in range(3):
        data = os.path.join(tmp, "r.data")
        subprocess.run(["perf", "record", "-q", "-F", "1999", "-g", "-o",
                        data, "--", "sh", "-c", cmd + " >/dev/null"],
                       check=True, capture_output=True)
        with open(os.path.join(b, "profiles", "run.%d.perf.txt" % (r + 1)),
                  "w") as f:
            subprocess.run(["perf", "script", "-i", data], check=True,
                           stdout=f, stderr=subprocess.DEVNULL)
    subprocess.run([pd, "ingest", "--db", db, b], check=True,
                   capture_output=True)


def one(pd, work, prog, n, k):
    tmp = tempfile.mkdtemp(prefix="pdbisect.")
    try:
        repo = os.path.join(tmp, "repo")
        shas = history(repo, n, k)
        run = programs.command(prog, work, "BUILD")
        cmd = run.replace(os.path.join("bin", "BUILD"),
                          "bin/$(cat build)")
        db = os.path.join(tmp, "h.db")
        store_baseline(pd, db, tmp,
                       cmd.replace("$(cat build)", "a"), shas[0])
        fn = programs.symbol(prog, 0)
        git(repo, "bisect", "start", shas[-1], shas[0])
        env = dict(os.environ, PERFDIFF=pd, PERFDIFF_DB=db)
        t0 = time.time()
        r = subprocess.run(
            ["git", "-C", repo, "bisect", "run", "sh",
             os.path.join(ROOT, "scripts", "bisect-perf.sh"),
             "--build", "true", "--run", cmd + " >/dev/null",
             "--baseline", "db:%s:s:warm" % shas[0],
             "--function", "^%s$" % re.escape(fn)],
            capture_output=True, text=True, env=env)
        secs = time.time() - t0
        out = r.stdout + r.stderr
        m = re.search(r"^([0-9a-f]{40}) is the first bad commit", out, re.M)
        steps = len(re.findall(r"^running ", out, re.M))
        runs = [int(x) for x in re.findall(
            r"(?:good|bad|undecided) after (\d+) runs? a side", out)]
        if m:
            got = shas.index(m.group(1)) if m.group(1) in shas else -1
            verdict = "right" if got == k else "wrong"
        else:
            got, verdict = None, "undecided"
        return {"prog": prog, "k": k, "verdict": verdict, "got": got,
                "steps": steps, "most_runs": max(runs) if runs else 0,
                "secs": round(secs), "tail": out[-600:]}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("perfdiff")
    ap.add_argument("work")
    ap.add_argument("--programs", default="gzip,mawk,yaml,lame")
    ap.add_argument("--places", default="2,4,5")
    ap.add_argument("--commits", type=int, default=8)
    ap.add_argument("--out")
    a = ap.parse_args()
    pd = os.path.abspath(a.perfdiff)
    rows = []
    for prog in a.programs.split(","):
        for k in map(int, a.places.split(",")):
            x = one(pd, os.path.abspath(a.work), prog, a.commits, k)
            rows.append(x)
            print("%s\tK=%d\t%s\tgot %s\t%d steps\tmost %d runs a side"
                  "\t%d s" % (prog, k, x["verdict"], x["got"], x["steps"],
                              x["most_runs"], x["secs"]), flush=True)
            if x["verdict"] != "right":
                print(x["tail"], file=sys.stderr)
    right = sum(x["verdict"] == "right" for x in rows)
    wrong = sum(x["verdict"] == "wrong" for x in rows)
    print("right %d of %d, wrong %d, undecided %d" %
          (right, len(rows), wrong, len(rows) - right - wrong))
    if a.out:
        with open(a.out, "w") as f:
            f.write("program\tplace\tverdict\tgot\tsteps\tmost_runs\tsecs\n")
            for x in rows:
                f.write("%s\t%d\t%s\t%s\t%d\t%d\t%d\n" % (
                    x["prog"], x["k"], x["verdict"], x["got"], x["steps"],
                    x["most_runs"], x["secs"]))


if __name__ == "__main__":
    main()
