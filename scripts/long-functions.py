#!/usr/bin/env python3
"""Lists the functions of src/ longer than a limit (default 120 lines,
from the opening brace to the closing one), longest first; exits 1 when
there is one. Functions are found by their braces in column 0, the way
the style rules write them (docs/style.md)."""
import glob
import os
import re
import sys


def functions(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    start = None
    for i, line in enumerate(lines):
        if line.startswith("{") and i > 0:
            j = i - 1
            while j >= 0 and not re.search(r"\w+\(", lines[j]):
                j -= 1
            m = re.search(r"(\w+)\(", lines[j]) if j >= 0 else None
            start, name = i, (m.group(1) if m else "?")
        elif line.startswith("}") and start is not None:
            yield name, start + 1, i - start + 1
            start = None


def main():
    limit = int(sys.argv[1]) if len(sys.argv) > 1 else 120
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
    long = []
    for path in sorted(glob.glob(os.path.join(root, "**", "*.c"), recursive=True)):
        for name, line, n in functions(path):
            if n > limit:
                long.append((n, os.path.relpath(path, root), line, name))
    for n, path, line, name in sorted(long, reverse=True):
        print("%4d lines  src/%s:%d  %s" % (n, path, line, name))
    return 1 if long else 0


if __name__ == "__main__":
    sys.exit(main())
