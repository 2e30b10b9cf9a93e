#!/usr/bin/env python3
"""The history on both backends, one generated history each: fills a
SQLite file and a PostgreSQL database with the same RUNS x FUNCS rows
(build/tests/bench_gen_db, writing rows as ingest does), then times the
same commands on both (median of --repeat)
and checks their outputs are byte-identical. docs/performance.md,
"PostgreSQL next to SQLite", is made with the defaults.

usage: tests/bench/bench_backends.py --pg URL [--runs 1000] [--funcs 20000]
  URL names an empty database on a running server (createdb first).
"""
import argparse
import os
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PD = os.path.join(ROOT, "build/perfdiff")


def timed(cmd, out):
    """Wall seconds of one command, its stdout kept."""
    t0 = time.monotonic()
    with open(out, "wb") as f:
        subprocess.run(cmd, stdout=f, stderr=subprocess.DEVNULL)
    return time.monotonic() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pg", required=True)
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--funcs", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="pdbench.")
    lite = os.path.join(tmp, "h.db")
    gen = os.path.join(ROOT, "build/tests/bench_gen_db")
    for db in (lite, a.pg):
        out = subprocess.run([gen, db, str(a.runs), str(a.funcs)],
                             capture_output=True, text=True, check=True)
        print("fill %s: %s" % ("SQLite" if db == lite else "PostgreSQL",
                               out.stdout.strip()))
    runs = subprocess.run([PD, "runs", "--db", lite], capture_output=True,
                          text=True, check=True).stdout.split("\n")
    a_sha, b_sha = runs[2].split()[1], runs[1].split()[1]
    cmds = [
        ("compare, text", ["compare", b_sha, a_sha, "--scenario", "bench"]),
        ("compare -f json", ["compare", b_sha, a_sha, "--scenario", "bench",
                             "-f", "json"]),
        ("one function's series", ["trend", "--scenario", "bench",
                                   "--function",
                                   "^ns::module17::function_17$",
                                   "--last", str(a.runs)]),
        ("trend --last 300", ["trend", "--scenario", "bench", "--last",
                              "300"]),
    ]
    print("| measure | SQLite | PostgreSQL | same output |")
    print("|---|---|---|---|")
    for name, args in cmds:
        row, outs = [], []
        for db in (lite, a.pg):
            out = os.path.join(tmp, "out.%d" % len(outs))
            times = sorted(timed([PD] + args + ["--db", db], out)
                           for _ in range(a.repeat))
            row.append("%.0f ms" % (1000 * times[len(times) // 2]))
            outs.append(open(out, "rb").read())
        print("| %s | %s | %s | %s |" % (name, row[0], row[1],
                                         "yes" if outs[0] == outs[1]
                                         else "**no**"))
    for f in os.listdir(tmp):
        os.unlink(os.path.join(tmp, f))
    os.rmdir(tmp)


if __name__ == "__main__":
    main()
