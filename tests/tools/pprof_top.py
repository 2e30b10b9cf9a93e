#!/usr/bin/env python3
"""Reads `go tool pprof -top` for one profile and value, as the reference
for perfdiff's pprof importer: prints {"total": T, "functions": {name:
[flat, cum]}} as JSON, in nanoseconds, bytes or plain counts.

usage: pprof_top.py PROFILE [SAMPLE_INDEX] [-- BASE]  (BASE: -diff_base)
"""
import json
import re
import subprocess
import sys

UNITS = {"ns": 1, "B": 1, "": 1}
NUM = re.compile(r"^(-?[0-9.]+(?:e[+-]?[0-9]+)?)(ns|B|)$")


def value(tok):
    m = NUM.match(tok)
    if not m:
        raise ValueError("unexpected value %r" % tok)
    return float(m.group(1)) * UNITS[m.group(2)]


def main():
    args = sys.argv[1:]
    base = None
    if "--" in args:
        i = args.index("--")
        base = args[i + 1]
        args = args[:i]
    prof = args[0]
    cmd = ["go", "tool", "pprof", "-top", "-nodefraction=0",
           "-nodecount=1000000", "-symbolize=none"]
    if len(args) > 1:
        cmd.append("-sample_index=" + args[1])
    if base:
        cmd.append("-diff_base=" + base)
    # -unit=ns: whole nanoseconds instead of rounded ms (bytes and counts
    # are printed whole with it too)
    out = subprocess.run(cmd + ["-unit=ns", prof], check=True,
                         capture_output=True, text=True).stdout
    funcs = {}
    total = None
    rows = False
    for line in out.splitlines():
        m = re.search(r"of (\S+) total", line)
        if m and total is None:
            total = value(m.group(1))
        if line.strip().startswith("flat"):
            rows = True
            continue
        if not rows or not line.strip():
            continue
        parts = line.split(None, 5)
        flat, cum, name = value(parts[0]), value(parts[3]), parts[5]
        name = re.sub(r" \((partial-)?inline\)$", "", name)
        f = funcs.setdefault(name, [0.0, 0.0])
        f[0] += flat
        f[1] += cum
    json.dump({"total": total, "functions": funcs}, sys.stdout)


main()
