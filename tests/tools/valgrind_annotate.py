#!/usr/bin/env python3
"""Per-function numbers of a callgrind or cachegrind file as valgrind's
own tools print them, for tests: callgrind_annotate (self, and inclusive
with --inclusive=yes) or cg_annotate (self), every function listed.
Prints {"total": T, "functions": {name: [self, inclusive]}} for one
event; inclusive is null from cg_annotate, which has none.

callgrind_annotate lists "file:function [object]". What it lists is
brought to perfdiff's function names here, not computed again:

- self is summed per function name over files (inlined code, fi=, is
  listed under the file it came from, without an object) and objects,
  and over callgrind's recursion levels and caller contexts ("walk'2"
  and "hash'render'main" are walk and hash: the part before the first
  quote);
- inclusive is summed over the files a function of that name is defined
  in (the entries with an object in the self listing, or all of them in
  a file that names no object), each the cost of
  calls from outside its recursion (the name without a level); the same
  file named with and without the current folder (callgrind_annotate
  shortens fl= but not cfi=) is one file;
- an unnamed address (0x0000000004838000) is "[unknown]", and compiler
  clone suffixes (.constprop.0, .isra.0, .part.0, .cold) are dropped, as
  perfdiff's function names have them (docs/formats.md).

usage: valgrind_annotate.py callgrind|cachegrind FILE EVENT
"""
import json
import os
import re
import subprocess
import sys

# "3,210,000 (72.12%)  work.c:parse_record [/path/w1]"; a zero may have no
# percentage
ROW = re.compile(r"^\s*([0-9,]+)(?:\s+\(\s*[0-9.]+%\))?\s+(\S.*)$")
CLONE = re.compile(
    r"(\.(llvm|constprop|isra|part|cold|lto_priv|clone|specialized)\.\d+"
    r"|\.cold)+$")
CWD = os.getcwd() + "/"


def split(text):
    """(file, function as written, object or None) of a listed row."""
    obj = None
    # "[/path/obj]"; g++'s "[clone .constprop.0]" ends a name, not an object
    m = re.match(r"^(.*) \[([^\]]*)\]$", text)
    if m and not m.group(2).startswith("clone "):
        text, obj = m.group(1), m.group(2)
    f, fn = text.split(":", 1) if ":" in text else ("", text)
    if f.startswith(CWD):
        f = f[len(CWD):]
    return f, fn, obj


def name(fn):
    base = fn.split("'")[0]
    if re.fullmatch(r"0x[0-9a-fA-F]+", base):
        return "[unknown]"
    return CLONE.sub("", base)


def rows(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True,
                         text=True).stdout
    total, funcs, started = None, [], False
    for line in out.splitlines():
        if "PROGRAM TOTALS" in line:
            total = int(line.split()[0].replace(",", ""))
        elif line.rstrip().endswith("file:function"):
            started = True
        elif started and line.startswith("-" * 20) and funcs:
            break
        elif started and not line.strip() and funcs:
            break
        elif started:
            m = ROW.match(line)
            if m and ":" in m.group(2):
                funcs.append((int(m.group(1).replace(",", "")),
                              split(m.group(2))))
    return total, funcs


def main():
    tool, path, event = sys.argv[1:4]
    res = {}
    if tool == "callgrind":
        base = ["callgrind_annotate", "--threshold=100", "--show=" + event,
                "--sort=" + event, "--auto=no"]
        total, selfs = rows(base + ["--inclusive=no", path])
        _, incl = rows(base + ["--inclusive=yes", path])
    else:
        total, selfs = rows(["cg_annotate", "--threshold=0", "--show=" + event,
                             "--sort=" + event, "--auto=no", path])
        incl = []
    defined = set()
    # a file with no ob= lines (hand-written ones) lists no objects: every
    # function it lists with self cost is defined there
    objects = any(obj is not None for _, (_, _, obj) in selfs)
    for v, (f, fn, obj) in selfs:
        res.setdefault(name(fn), [0, None])[0] += v
        if (obj is not None or not objects) and "'" not in fn:
            defined.add((f, fn))
    best = {}
    for v, (f, fn, obj) in incl:
        if (f, fn) in defined:
            best[(f, fn)] = max(v, best.get((f, fn), 0))
    for (f, fn), v in best.items():
        r = res[name(fn)]
        r[1] = (r[1] or 0) + v
    json.dump({"total": total, "functions": res}, sys.stdout, indent=1,
              sort_keys=True)
    print()


main()
