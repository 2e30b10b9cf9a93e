#!/usr/bin/env python3
"""An independent reading of a DHAT profile, for tests: Python's json and
re, the rules of docs/formats.md (leaf-first fs, frames matching ALLOC cut
from the leaf end but one kept, [root] not a frame, a function counted
once per stack in its total). Prints {"total": T, "functions": {name:
[self, total]}}.

usage: dhat_funcs.py FILE KEY ALLOC_REGEX    (KEY: tb, tbk, gb, ...)
"""
import gzip
import json
import re
import sys


def main():
    path, key, alloc = sys.argv[1:4]
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        d = json.load(f)
    rx = re.compile(alloc)
    names, is_alloc = [], []
    for s in d["ftbl"]:
        text = re.sub(r"^0x[0-9A-Fa-f]+: ", "", s)
        m = re.match(r"^(.*) \((in [^()]*|[^()]*)\)$", text)
        names.append(m.group(1) if m else text)
        is_alloc.append(rx.fullmatch(text) is not None)
    funcs, total = {}, 0
    for pp in d["pps"]:
        w = pp[key]
        if w <= 0:
            continue
        fs = list(pp["fs"])
        while len(fs) > 1 and is_alloc[fs[0]]:
            fs.pop(0)
        fs = [i for i in fs if i != 0]
        total += w
        if not fs:
            continue
        f = funcs.setdefault(names[fs[0]], [0, 0])
        f[0] += w
        for n in set(names[i] for i in fs):
            funcs.setdefault(n, [0, 0])[1] += w
    json.dump({"total": total, "functions": funcs}, sys.stdout)


main()
