#!/usr/bin/env python3
"""History scale benchmark: RUNS runs x FUNCS functions (default 10000 x
20000), then times `perfdiff compare` of two commits (text and JSON),
`perfdiff trend --function F --last 1000` and one function's series over
all runs (the query in sql/q_series.sql). Each command's figure is the
median of five runs' CPU time (user + system, the process's own
accounting) with its wall time and peak memory.

usage: tests/bench/bench_db.py [--runs 10000] [--funcs 20000] [--db PATH]
       [--keep] [--reuse]
"""
import argparse
import os
import sqlite3
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def measure(argv, runs=5):
    """Medians of CPU seconds, wall seconds and peak MiB over runs."""
    cpu, wall, peak = [], [], []
    for _ in range(runs):
        t0 = time.monotonic()
        p = subprocess.Popen(argv, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        wall.append(time.monotonic() - t0)
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode not in (0, 1):
            raise SystemExit("%s: exit %d" % (" ".join(argv), p.returncode))
        cpu.append(ru.ru_utime + ru.ru_stime)
        peak.append(ru.ru_maxrss / 1024.0)
    med = lambda v: sorted(v)[len(v) // 2]
    return med(cpu), med(wall), med(peak)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10000)
    ap.add_argument("--funcs", type=int, default=20000)
    ap.add_argument("--db", default="/tmp/pdbench-history.db")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--reuse", action="store_true",
                    help="time the database --db holds (kept by --keep)")
    a = ap.parse_args()
    if not (a.reuse and os.path.exists(a.db)):
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(a.db + suffix):
                os.unlink(a.db + suffix)
        out = subprocess.run([os.path.join(ROOT, "build/tests/bench_gen_db"),
                              a.db, str(a.runs), str(a.funcs)],
                             capture_output=True, text=True, check=True)
        print(out.stdout.strip())
    # the commands first: a child's peak memory counts the parent's at
    # its start, and reading the series below maps much of the file
    con = sqlite3.connect(a.db)
    shas = [r[0] for r in con.execute(
        "SELECT git_sha FROM runs ORDER BY id LIMIT 2 OFFSET ?", (a.runs // 2,))]
    con.close()
    pd = os.path.join(ROOT, "build/perfdiff")
    cmp = [pd, "compare", shas[0][:12], shas[1][:12], "--scenario", "bench",
           "--db", a.db]
    # one function: its name and module, matched as a pattern
    trend = [pd, "trend", "--function", r"::function_%d \[" % (a.funcs // 2),
             "--last", "1000", "--scenario", "bench", "--db", a.db]
    for label, argv in (("compare two commits, text", cmp),
                        ("compare two commits, -f json", cmp + ["-f", "json"]),
                        ("trend --function F --last 1000", trend)):
        cpu, wall, peak = measure(argv)
        print("%s (%d functions, noise from 30 commits): CPU %.0f ms, wall"
              " %.0f ms, peak %.0f MiB (medians of 5)" % (label, a.funcs,
                                                          cpu * 1000,
                                                          wall * 1000, peak))
    con = sqlite3.connect(a.db)
    con.execute("PRAGMA mmap_size = 2147418112")  # as perfdiff opens it
    series_sql = open(os.path.join(ROOT, "sql/q_series.sql")).read()
    best = 1e9
    for fid in (1, a.funcs // 2, a.funcs):
        t0 = time.monotonic()
        rows = con.execute(series_sql, (fid, "bench", None)).fetchall()
        best = min(best, time.monotonic() - t0)
        assert len(rows) == a.runs, len(rows)
    print("series of one function over %d runs: %.1f ms" % (a.runs, best * 1000))
    con.close()
    if not a.keep:
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(a.db + suffix):
                os.unlink(a.db + suffix)


if __name__ == "__main__":
    main()
