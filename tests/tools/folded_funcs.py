#!/usr/bin/env python3
"""Independent per-function self/total from a folded-stacks file.

Used by the tests to check perfdiff's importers against another reading of
the same data: collapsed files written by FlameGraph's stackcollapse-perf.pl
or inferno, read here with nothing shared with perfdiff's C code.

usage: folded_funcs.py FILE [--skip-root N] [--strip-annotations]
prints JSON {"total": W, "functions": {name: [self, total], ...}}
"""
import json
import re
import sys


def main():
    args = sys.argv[1:]
    path = args[0]
    skip = 0
    strip = False
    i = 1
    while i < len(args):
        if args[i] == "--skip-root":
            skip = int(args[i + 1])
            i += 2
        elif args[i] == "--strip-annotations":
            strip = True
            i += 1
        else:
            sys.exit("unknown argument " + args[i])
    funcs = {}
    total = 0.0
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\r\n")
            m = re.match(r"^(.*\S)\s+(\d+(?:\.\d*)?)$", line)
            if not m or line.startswith("#"):
                continue
            w = float(m.group(2))
            frames = [x for x in m.group(1).split(";") if x][skip:]
            if strip:
                frames = [re.sub(r"_\[[kjiw]\]$", "", x) for x in frames]
            total += w
            if not frames:
                continue
            leaf = frames[-1]
            funcs.setdefault(leaf, [0.0, 0.0])[0] += w
            for name in set(frames):
                funcs.setdefault(name, [0.0, 0.0])[1] += w
    json.dump({"total": total, "functions": funcs}, sys.stdout, indent=0,
              sort_keys=True)


if __name__ == "__main__":
    main()
