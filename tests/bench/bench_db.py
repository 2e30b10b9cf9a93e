#!/usr/bin/env python3
"""History scale benchmark: RUNS runs x FUNCS functions (default 10000 x
20000), then times `perfdiff compare` of two commits and one function's
series over all runs (the query in sql/q_series.sql).

usage: tests/bench/bench_db.py [--runs 10000] [--funcs 20000] [--db PATH]
"""
import argparse
import os
import sqlite3
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10000)
    ap.add_argument("--funcs", type=int, default=20000)
    ap.add_argument("--db", default="/tmp/pdbench-history.db")
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(a.db + suffix):
            os.unlink(a.db + suffix)
    out = subprocess.run([os.path.join(ROOT, "build/tests/bench_gen_db"), a.db,
                          str(a.runs), str(a.funcs)], capture_output=True,
                         text=True, check=True)
    print(out.stdout.strip())
    con = sqlite3.connect(a.db)
    con.execute("PRAGMA mmap_size = 2147418112")  # as perfdiff opens it
    shas = [r[0] for r in con.execute(
        "SELECT git_sha FROM runs ORDER BY id LIMIT 2 OFFSET ?", (a.runs // 2,))]
    series_sql = open(os.path.join(ROOT, "sql/q_series.sql")).read()
    best = 1e9
    for fid in (1, a.funcs // 2, a.funcs):
        t0 = time.monotonic()
        rows = con.execute(series_sql, (fid, "bench", None)).fetchall()
        best = min(best, time.monotonic() - t0)
        assert len(rows) == a.runs, len(rows)
    print("series of one function over %d runs: %.1f ms" % (a.runs, best * 1000))
    con.close()
    times = []
    for _ in range(3):
        t0 = time.monotonic()
        subprocess.run([os.path.join(ROOT, "build/perfdiff"), "compare",
                        shas[0][:12], shas[1][:12], "--scenario", "bench",
                        "--db", a.db, "-f", "json"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        times.append(time.monotonic() - t0)
    print("compare two commits (%d functions, noise from 30 commits):"
          " best %.0f ms, median %.0f ms" % (a.funcs, min(times) * 1000,
                                            sorted(times)[1] * 1000))
    if not a.keep:
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(a.db + suffix):
                os.unlink(a.db + suffix)


if __name__ == "__main__":
    main()
