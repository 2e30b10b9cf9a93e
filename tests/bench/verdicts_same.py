#!/usr/bin/env python3
"""Whether two perfdiff binaries give the same verdicts: runs both on every
neighbouring pair of files in each folder given, each file against
itself, and (with four files or more) two runs against two, and compares
their JSON reports and exit statuses byte for byte. For a change of
stats/ that should move no verdict on the inputs given (docs/statistics.md,
"The benchmark of real programs": what was checked so when the
recordings were not made again).

usage: tests/bench/verdicts_same.py OLD_PERFDIFF NEW_PERFDIFF DIR...
prints each pair that differs, then the count; exits 1 when any does.
"""
import os
import subprocess
import sys


def report(binary, args):
    r = subprocess.run([binary, "-f", "json"] + args, capture_output=True,
                       timeout=300)
    return r.returncode, r.stdout


def main():
    old, new, dirs = sys.argv[1], sys.argv[2], sys.argv[3:]
    cases = []
    for d in dirs:
        files = sorted(os.path.join(d, f) for f in os.listdir(d)
                       if os.path.isfile(os.path.join(d, f))
                       and not f.startswith(".") and not f.endswith(".md"))
        cases += [[a, b] for a, b in zip(files, files[1:])]
        cases += [[a, a] for a in files]
        if len(files) >= 4:
            cases.append(["-b", files[0], "-b", files[1],
                          "-c", files[2], "-c", files[3]])
    differ = 0
    for c in cases:
        if report(old, c) != report(new, c):
            differ += 1
            print("differs:", " ".join(c))
    print("%d comparisons, %d identical, %d differ"
          % (len(cases), len(cases) - differ, differ))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
