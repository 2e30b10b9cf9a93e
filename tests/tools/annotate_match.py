#!/usr/bin/env python3
"""Whether perfdiff's per-function numbers of a callgrind or cachegrind
file equal valgrind's own, for tests: OURS is `perfdiff show -f json
--event E FILE`, REF is valgrind_annotate.py's answer for the same file
and event. The profile's total and every function's self must be equal
(a function one side lists with 0 and the other leaves out is equal);
with --total, so must every total REF gives, unnamed code ([unknown])
left out (callgrind names each address apart, perfdiff sums them per
module). Prints the first differences and exits 1 when there are any.

usage: annotate_match.py [--total] [--skip NAME]... OURS REF
"""
import json
import sys


def main():
    args, totals, skip = sys.argv[1:], False, {"[unknown]"}
    while args and args[0].startswith("--"):
        if args[0] == "--total":
            totals = True
            args = args[1:]
        elif args[0] == "--skip":
            skip.add(args[1])
            args = args[2:]
        else:
            sys.exit("annotate_match.py: unknown option " + args[0])
    ours, ref = (json.load(open(p)) for p in args)
    bad = []
    if ours["profile"]["total"] != ref["total"]:
        bad.append(("(total)", ours["profile"]["total"], ref["total"]))
    o = {}
    for f in ours["functions"]:
        s, t = o.get(f["function"], (0, 0))
        o[f["function"]] = (s + f["self"],
                            None if f["total"] is None else t + f["total"])
    r = ref["functions"]
    for k in sorted(set(o) | set(r)):
        if o.get(k, (0, 0))[0] != r.get(k, [0])[0]:
            bad.append((k + " self", o.get(k, (0, 0))[0], r.get(k, [0])[0]))
    for k in sorted(r):
        if totals and r[k][1] is not None and k not in skip and \
                o.get(k, (0, 0))[1] != r[k][1]:
            bad.append((k + " total", o.get(k, (0, 0))[1], r[k][1]))
    for what, a, b in bad[:8]:
        print("%s: perfdiff %s, valgrind %s" % (what, a, b))
    sys.exit(1 if bad else 0)


main()
