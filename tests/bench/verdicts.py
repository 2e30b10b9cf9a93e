#!/usr/bin/env python3
"""Verdicts on real recordings (docs/statistics.md, "calibration").

Reads the recordings tests/bench/record_mixed.sh made (OUTDIR/a-R-K and
OUTDIR/pF-R) and runs perfdiff on them:
  - A/A: the three unchanged recordings of each round, as consecutive
    pairs: how many pairs exit 1, how many of the program's functions are
    flagged per pair (self or total, regressed or improved);
  - planted changes: +PCT % in f00, f01 and f08, found (self regressed)
    with 1, 3 and 5 runs per side (runs of consecutive rounds), and
    verdicts in the wrong direction (the planted function improved).
Prints a Markdown table. Not a test: a measurement.

usage: tests/bench/verdicts.py PERFDIFF OUTDIR [EXTRA-ARGS...]
"""
import glob
import json
import os
import re
import subprocess
import sys


def run(pd, extra, base, cand):
    args = [pd, "-f", "json"] + extra
    if len(base) == 1 and len(cand) == 1:
        args += [base[0], cand[0]]
    else:
        for b in base:
            args += ["-b", b]
        for c in cand:
            args += ["-c", c]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode > 1:
        sys.exit("perfdiff failed: " + r.stderr)
    return r.returncode, json.loads(r.stdout)


def moved(f):
    st = {f["self"]["status"], (f.get("total") or {}).get("status")}
    return bool(st & {"regressed", "improved"})


def planted(d, name):
    for f in d["functions"]:
        if re.match(name + r"(\.constprop\.0)?$", f["function"]):
            return f["self"]
    return {"status": "absent", "mde_pct": None}


def main():
    pd, out, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
    rounds = sorted({int(m.group(1)) for m in
                     (re.match(r"a-(\d+)-1\.perf\.txt$", os.path.basename(p))
                      for p in glob.glob(os.path.join(out, "a-*-1.perf.txt")))
                     if m and os.path.exists(os.path.join(
                         out, "p8-%s.perf.txt" % m.group(1)))})
    path = lambda n: os.path.join(out, n)
    print("| measure | value |")
    print("|---|---|")
    # A/A within a round (interleaved, back to back) and across rounds
    # (another load, as from one night to the next)
    for kind in ("within a round", "across rounds"):
        pairs = exits = flagged = 0
        for i, r in enumerate(rounds):
            if kind == "within a round":
                todo = [("a-%d-%d" % (r, k), "a-%d-%d" % (r, k + 1))
                        for k in (1, 2)]
            elif i + 1 < len(rounds):
                todo = [("a-%d-%d" % (r, k), "a-%d-%d" % (rounds[i + 1], k))
                        for k in (1, 2, 3)]
            else:
                todo = []
            for x, y in todo:
                rc, d = run(pd, extra, [path(x + ".perf.txt")],
                            [path(y + ".perf.txt")])
                pairs += 1
                exits += rc == 1
                flagged += sum(1 for f in d["functions"]
                               if moved(f) and not f.get("system"))
        print("| A/A pairs %s | %d |" % (kind, pairs))
        print("| ... that exit 1 | %d (%.1f %%) |"
              % (exits, 100.0 * exits / max(pairs, 1)))
        print("| ... functions flagged per pair | %.3f |"
              % (flagged / max(pairs, 1)))
    # A/A with several runs per side: runs 1 and 2 of consecutive rounds
    for n in (3, 5):
        pairs = exits = flagged = 0
        for g in range(0, len(rounds) - n + 1, n):
            rs = rounds[g:g + n]
            rc, d = run(pd, extra, [path("a-%d-1.perf.txt" % r) for r in rs],
                        [path("a-%d-2.perf.txt" % r) for r in rs])
            pairs += 1
            exits += rc == 1
            flagged += sum(1 for f in d["functions"]
                           if moved(f) and not f.get("system"))
        print("| A/A, %d runs per side | %d comparisons, %d exit 1, %.2f functions flagged each |"
              % (n, pairs, exits, flagged / max(pairs, 1)))
    print()
    print("| planted change | runs per side | found | wrong direction | median MDE |")
    print("|---|---|---|---|---|")
    pct = float(os.environ.get("PCT", "20"))
    promise = kept = 0
    for f, k in (("f00", 1), ("f01", 2), ("f08", 3)):
        plant = "p%d" % int(f[1:])
        for n in (1, 3, 5):
            found = wrong = tries = 0
            mdes = []
            for g in range(0, len(rounds) - n + 1, n):
                rs = rounds[g:g + n]
                base = [path("a-%d-%d.perf.txt" % (r, k)) for r in rs]
                cand = [path("%s-%d.perf.txt" % (plant, r)) for r in rs]
                _, d = run(pd, extra, base, cand)
                m = planted(d, f)
                st = m["status"]
                if m["mde_pct"] is not None:
                    mdes.append(m["mde_pct"])
                    # the MDE promise: a change of 1.5 MDE or more is found
                    if pct >= 1.5 * m["mde_pct"]:
                        promise += 1
                        kept += st == "regressed"
                tries += 1
                found += st == "regressed"
                wrong += st == "improved"
            mdes.sort()
            print("| +%g %% %s | %d | %d of %d (%.0f %%) | %d | %s |"
                  % (pct, f, n, found, tries, 100.0 * found / max(tries, 1),
                     wrong, "%.0f %%" % mdes[len(mdes) // 2] if mdes else "-"))
    print()
    print("Planted changes at least 1.5 times the reported MDE: %d, found: %d"
          % (promise, kept))


if __name__ == "__main__":
    main()
