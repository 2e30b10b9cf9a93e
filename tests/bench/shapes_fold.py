#!/usr/bin/env python3
"""Folded stacks from a perf script text, written independently of
perfdiff's own convert: one line per distinct stack, frames from the
root to the leaf joined by ';', then the number of samples. A frame is
its symbol without the +0x offset ("[unknown]" when perf had none);
frames of [kernel.kallsyms] get the collapsers' "_[k]" mark. The times
are dropped: the same samples, without the time information.

usage: tests/bench/shapes_fold.py IN.perf.txt OUT.folded
       tests/bench/shapes_fold.py --missing DIR...
  (--missing: every DIR/*.perf.txt without its .folded yet)
"""
import glob
import os
import re
import sys

OFFSET = re.compile(r"\+0x[0-9a-f]+$")


def stacks(path):
    """Each sample's frames, leaf first."""
    cur = None
    with open(path, errors="replace") as f:
        for line in f:
            if not line.strip():
                if cur:
                    yield cur
                cur = None
                continue
            if not line[0].isspace():
                cur = []
                continue
            if cur is None:
                continue
            parts = line.strip().split(" ", 1)
            rest = parts[1] if len(parts) > 1 else "[unknown]"
            sym, _, dso = rest.rpartition(" (")
            if not sym:
                sym, dso = rest, ""
            sym = OFFSET.sub("", sym.strip()) or "[unknown]"
            if dso.rstrip(")") == "[kernel.kallsyms]":
                sym += "_[k]"
            cur.append(sym.replace(";", ":"))
    if cur:
        yield cur


def fold(src, dst):
    counts = {}
    for frames in stacks(src):
        key = ";".join(reversed(frames))
        counts[key] = counts.get(key, 0) + 1
    with open(dst + ".tmp", "w") as out:
        for key in sorted(counts):
            out.write("%s %d\n" % (key, counts[key]))
    os.replace(dst + ".tmp", dst)


def main():
    if sys.argv[1] == "--missing":
        for d in sys.argv[2:]:
            for src in sorted(glob.glob(os.path.join(d, "*.perf.txt"))):
                dst = src[:-len(".perf.txt")] + ".folded"
                if not os.path.exists(dst):
                    fold(src, dst)
    else:
        fold(sys.argv[1], sys.argv[2])


if __name__ == "__main__":
    main()
