#!/usr/bin/env python3
"""Independent per-function self/total for Firefox processed profiles.

Reads the file with Python's json (a different parser and different code
from perfdiff's C importer) and follows docs/formats.md, "samply and the Firefox Profiler": stacks
walked through prefix or prefixOffset, frame -> func -> name, weights as
wall-clock samples x interval. Functions are keyed by name only.

usage: ffprof_funcs.py FILE   prints JSON {"total": ns, "functions": {...}}
"""
import gzip
import json
import sys


def load(path):
    raw = open(path, "rb").read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    text = raw.decode("utf-8")
    if text.startswith("---\n"):
        text = text[text.index("\n---\n") + 5:]
    return json.loads(text)


def main():
    d = load(sys.argv[1])
    interval_ns = d["meta"]["interval"] * 1e6
    shared = d.get("shared", {})
    funcs = {}
    total = 0.0
    for t in d["threads"]:
        st = t.get("stackTable") or shared["stackTable"]
        ft = t.get("frameTable") or shared["frameTable"]
        fn = t.get("funcTable") or shared["funcTable"]
        strings = t.get("stringArray") or shared.get("stringArray")
        rt = t.get("resourceTable") or shared.get("resourceTable") or {}
        libs = t.get("libs") or d.get("libs") or []
        samples = t["samples"]
        weights = samples.get("weight") or [1] * len(samples["stack"])
        for s, w in zip(samples["stack"], weights):
            if s is None:
                continue
            w = (w if w is not None else 1) * interval_ns
            names = []
            while s is not None:
                f = st["frame"][s]
                func = ft["func"][f]
                name = strings[fn["name"][func]]
                res = fn["resource"][func]
                lib = None
                if "lib" in ft:
                    lib = ft["lib"][f]
                elif (res is not None and res >= 0 and rt.get("lib") and
                      res < len(rt["lib"])):
                    lib = rt["lib"][res]
                addr = ft.get("address", [None] * (f + 1))[f]
                # formats.md 2.6: an unsymbolicated frame is lib + offset
                if (name.startswith("0x") and lib is not None and
                        addr is not None and addr >= 0):
                    name = "%s+0x%x" % (libs[lib]["name"], addr)
                names.append(name)
                if "prefixOffset" in st:
                    off = st["prefixOffset"][s]
                    s = s - off if off else None
                else:
                    s = st["prefix"][s]
            total += w
            leaf = names[0]
            funcs.setdefault(leaf, [0.0, 0.0])[0] += w
            for n in set(names):
                funcs.setdefault(n, [0.0, 0.0])[1] += w
    json.dump({"total": total, "functions": funcs}, sys.stdout)


if __name__ == "__main__":
    main()
