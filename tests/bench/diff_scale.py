#!/usr/bin/env python3
"""How the one-pair diff scales with the number of well-sampled functions.

For each N given, writes two folded profiles of N functions of about 60
samples each (every one a voter of the program's shift, which needs 40 on
the two sides together; counts drawn around 60 from a fixed seed, one
function in a hundred 30 % slower in the candidate), runs `perfdiff -f json`
on them once and prints the wall and CPU seconds (user + sys of the child)
and the peak resident memory. Not a test: a measurement
(docs/performance.md, "The diff at scale").

usage: diff_scale.py PERFDIFF N [N ...]
"""
import os
import random
import resource
import subprocess
import sys
import tempfile
import time


def write(path, n, slow, seed):
    r = random.Random(seed)
    with open(path, "w") as f:
        for i in range(n):
            c = 60 * (1.3 if slow and i % 100 == 0 else 1.0)
            # about Poisson: a normal draw of its variance, at least 1
            k = max(1, round(r.gauss(c, c ** 0.5)))
            f.write("main;f%07d %d\n" % (i, k))


def main():
    pd, sizes = sys.argv[1], [int(x) for x in sys.argv[2:]]
    print("| functions | wall s | CPU s | peak MB |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as d:
        for n in sizes:
            a, b = os.path.join(d, "a.folded"), os.path.join(d, "b.folded")
            write(a, n, False, 1)
            write(b, n, True, 2)
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.monotonic()
            with open(os.devnull, "w") as null:
                rc = subprocess.run([pd, "--sample-weight", "1", "-f", "json",
                                     a, b], stdout=null,
                                    stderr=subprocess.DEVNULL).returncode
            wall = time.monotonic() - t0
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime +
                   after.ru_stime - before.ru_stime)
            # ru_maxrss of the children: the largest child so far, in KiB
            print("| %d | %.2f | %.2f | %.0f |%s" % (
                n, wall, cpu, after.ru_maxrss / 1024,
                "" if rc in (0, 1) else " exit %d" % rc))


if __name__ == "__main__":
    main()
