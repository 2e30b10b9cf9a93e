#!/usr/bin/env python3
"""Sizes the planted changes of the real-program benchmark and measures
them (tests/bench/real/README.md): the truth is each function's self
instructions under callgrind, which do not depend on the machine's load.

For a program: callgrind runs the unchanged build a and a probe build
(PROBE additions at both sites) on the program's truth input; each
site's cost per addition gives the counts that make +10 % and +35 %
(site 0), +20 % and +33.3 % (site 1: the pad build, which a is -25 %
against) of the planted function's self instructions; build.sh builds
them; callgrind measures every pair's planted function and the largest
change of any other function of 1 % or more of the program.

Writes WORK/PROG/counts.json (PD_Ki per build) and WORK/PROG/truth.json.

usage: calibrate.py WORK PROG [PROG ...]
"""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import programs  # noqa: E402

PROBE = 64
LINE = re.compile(r"^\s*([\d,]+) \([ \d.]+%\)\s+(.*?):(\S+)(?: \[.*\])?$")
SUFFIX = re.compile(r"(\.(constprop|isra|part|cold|lto_priv)(\.\d+)?)+$")


def self_ir(work, prog, build):
    """callgrind of one build on the truth input: function -> self Ir
    (suffixes such as .isra.0 folded into their function)."""
    out = os.path.join(work, prog, "cg-%s.out" % build)
    if not os.path.exists(out):
        cmd = programs.command(prog, work, build, truth=True)
        subprocess.run(["sh", "-c", "valgrind -q --tool=callgrind "
                        "--callgrind-out-file=%s.tmp %s >/dev/null" %
                        (out, cmd)], check=True)
        os.replace(out + ".tmp", out)
    text = subprocess.run(["callgrind_annotate", "--inclusive=no",
                           "--threshold=100", out], check=True,
                          capture_output=True, text=True).stdout
    costs = {}
    for line in text.splitlines():
        m = LINE.match(line)
        if m and m.group(3) != "TOTALS":
            fn = SUFFIX.sub("", m.group(3))
            costs[fn] = costs.get(fn, 0) + int(m.group(1).replace(",", ""))
    return costs


def build(work, prog, name, flags):
    subprocess.run([os.path.join(HERE, "build.sh"), work, "--one", prog,
                    name, flags], check=True)


def site_fn(prog, i):
    return programs.symbol(prog, i)


def measured(work, prog, name, flags, fn, base):
    """Builds name with flags (afresh) and returns its planted
    function's self instructions over base's, minus 1."""
    for path in (os.path.join(work, prog, "bin", name),
                 os.path.join(work, prog, "cg-%s.out" % name)):
        if os.path.exists(path):
            os.unlink(path)
    build(work, prog, name, flags)
    return self_ir(work, prog, name).get(fn, 0) / base[fn] - 1


def calibrate(work, prog):
    """Counts for each planted build: first from the probe's cost per
    addition, then corrected by what callgrind measured (the cost of
    an addition is not quite linear in the count: loop overheads, code
    the compiler lays out anew), until within a tenth of the target."""
    subprocess.run([os.path.join(HERE, "build.sh"), work, prog], check=True)
    a = self_ir(work, prog, "a")
    # two probes: the loop's cost per addition, and its fixed cost
    build(work, prog, "probe", "-DPD_K0=%d -DPD_K1=%d" % (PROBE, PROBE))
    pr = self_ir(work, prog, "probe")
    build(work, prog, "probe2", "-DPD_K0=%d -DPD_K1=%d" % (4 * PROBE,
                                                          4 * PROBE))
    pr2 = self_ir(work, prog, "probe2")
    counts = {}
    for v, (site, pct) in programs.VARIANTS.items():
        fn = site_fn(prog, site)
        slope = (pr2.get(fn, 0) - pr.get(fn, 0)) / (3 * PROBE)
        fixed = pr.get(fn, 0) - a.get(fn, 0) - slope * PROBE
        if not a.get(fn) or slope <= 0:
            sys.exit("calibrate.py: %s: no cost of %s at its site" % (prog, fn))
        k = max(1, round((pct / 100 * a[fn] - max(fixed, 0)) / slope))
        for _ in range(4):
            got = measured(work, prog, v, "-DPD_K%d=%d" % (site, k), fn, a)
            if abs(got * 100 - pct) <= 0.1 * pct or got <= 0:
                break
            # the secant through the fixed cost
            k2 = max(1, round(k * (pct / 100 * a[fn] - max(fixed, 0)) /
                              (got * a[fn] - max(fixed, 0))))
            if k2 == k:
                break
            k = k2
        counts[v] = k
    path = os.path.join(work, prog, "counts.json")
    with open(path + ".tmp", "w") as f:
        json.dump(counts, f, indent=1)
    os.replace(path + ".tmp", path)
    return counts


def truth(work, prog):
    costs = {b: self_ir(work, prog, b) for b in ("a", "p10", "p35", "p20",
                                                 "pad")}
    total = sum(costs["a"].values())
    out = {"program_ir": total, "pairs": {}}
    for pair, (base, cand, site, want) in programs.PAIRS.items():
        fn = site_fn(prog, site)
        cb, cc = costs[base], costs[cand]
        other = 0.0
        for f, c in cb.items():
            if f != fn and c >= 0.01 * total:
                other = max(other, abs(cc.get(f, 0) / c - 1))
        out["pairs"][pair] = {
            "function": fn, "planned_pct": want,
            "self_pct": 100 * (cc[fn] / cb[fn] - 1),
            "share_of_program_pct": 100 * cb[fn] / sum(cb.values()),
            "program_pct": 100 * (sum(cc.values()) / sum(cb.values()) - 1),
            "largest_other_pct": 100 * other}
    path = os.path.join(work, prog, "truth.json")
    with open(path + ".tmp", "w") as f:
        json.dump(out, f, indent=1)
    os.replace(path + ".tmp", path)
    return out


def main():
    work = os.path.abspath(sys.argv[1])
    failed = 0
    for prog in sys.argv[2:]:
        try:
            if not os.path.exists(os.path.join(work, prog, "counts.json")):
                calibrate(work, prog)
            subprocess.run([os.path.join(HERE, "build.sh"), work, prog],
                           check=True)
            t = truth(work, prog)
        except (subprocess.CalledProcessError, SystemExit) as e:
            print("calibrate.py: %s: %s" % (prog, e), file=sys.stderr)
            failed = 1
            continue
        for pair, x in t["pairs"].items():
            print("%s %s %s: %+.1f %% (planned %+.1f), %.1f %% of the"
                  " program, others at most %.1f %%" % (
                      prog, pair, x["function"], x["self_pct"],
                      x["planned_pct"], x["share_of_program_pct"],
                      x["largest_other_pct"]))
    sys.exit(failed)


if __name__ == "__main__":
    main()
