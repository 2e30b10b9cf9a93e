#!/usr/bin/env python3
"""perf.data read directly, against the tools perf users run on the same pair.

usage: tests/bench/perfdata.py [--seconds 5] [--freq 4999] [--runs 7]

Records a pair itself (perf record -g of fixtures/workload/mixed.c, two
processes, the kernel and libc in the stacks), then times, interleaved
run by run: `perfdiff a.data b.data` (read directly), `perf diff a.data
b.data`, `perf report` of one file, and the old path (perf script of both
files, then perfdiff on the text). Prints medians of wall and CPU time,
peak RSS and each tool's ratio to perfdiff. Needs build/perfdiff and a
perf that can record. Not part of the test suite.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def measure(cmd, shell=False):
    """(wall s, CPU s, peak RSS MB) of one run of cmd, output discarded."""
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        if shell:
            os.execvp("sh", ["sh", "-c", cmd])
        os.execvp(cmd[0], cmd)
    _, status, ru = os.wait4(pid, 0)
    wall = time.monotonic() - t0
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        sys.exit("failed: %s" % (cmd,))
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0


def record(d, m, out, seconds, freq):
    rounds = int(seconds * 370)  # about 2.7 ms a round here
    subprocess.run(["perf", "record", "-q", "-g", "-F", str(freq), "-o", out,
                    "--", "sh", "-c", "%s %d & %s %d; wait" %
                    (m, rounds, m, rounds)],
                   check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, cwd=d)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--freq", type=int, default=4999)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--dir", default=tempfile.gettempdir())
    a = ap.parse_args()
    pd = os.path.join(ROOT, "build/perfdiff")
    if not shutil.which("perf"):
        sys.exit("perf is not installed")
    d = tempfile.mkdtemp(prefix="pdbench-perfdata-", dir=a.dir)
    m = os.path.join(d, "mixed")
    subprocess.run(["cc", "-O2", "-fno-omit-frame-pointer", "-o", m,
                    os.path.join(ROOT, "fixtures/workload/mixed.c")],
                   check=True)
    pa, pb = os.path.join(d, "a.data"), os.path.join(d, "b.data")
    record(d, m, pa, a.seconds, a.freq)
    record(d, m, pb, a.seconds, a.freq)
    size = os.path.getsize(pa) + os.path.getsize(pb)
    old = ("perf script -i {a} > {d}/a.txt && perf script -i {b} > {d}/b.txt"
           " && {pd} {d}/a.txt {d}/b.txt").format(a=pa, b=pb, d=d, pd=pd)
    runs = {
        "perfdiff a.data b.data": ([pd, pa, pb], False),
        "perfdiff show a.data": ([pd, "show", pa], False),
        "perf diff a.data b.data": (["perf", "diff", pa, pb], False),
        "perf report a.data": (["perf", "report", "--stdio", "-i", pa], False),
        "perf script x2 + perfdiff": (old, True),
    }
    got = {k: [] for k in runs}
    for _ in range(a.runs):  # interleaved: the machine's load hits all
        for k, (cmd, sh) in runs.items():
            got[k].append(measure(cmd, sh))
    n = subprocess.run([pd, "show", "-f", "json", pa], capture_output=True,
                       text=True).stdout.count('"function"')
    print("pair: 2 x %.1f MB, %d functions; medians of %d interleaved runs"
          % (size / 2e6, n, a.runs))
    base = statistics.median(w for w, _, _ in got["perfdiff a.data b.data"])
    basec = statistics.median(c for _, c, _ in got["perfdiff a.data b.data"])
    print("%-28s %8s %8s %9s %10s %10s" % ("run", "wall s", "CPU s", "RSS MB",
                                           "wall ratio", "CPU ratio"))
    for k, v in got.items():
        w = statistics.median(x[0] for x in v)
        c = statistics.median(x[1] for x in v)
        r = statistics.median(x[2] for x in v)
        print("%-28s %8.3f %8.3f %9.1f %10.1f %10.1f" % (k, w, c, r, w / base,
                                                         c / basec))
    print("perfdiff reads %.0f MB/s of perf.data (pair, wall)"
          % (size / 1e6 / base))
    shutil.rmtree(d)


if __name__ == "__main__":
    sys.exit(main())
