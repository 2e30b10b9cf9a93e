#!/bin/sh
# Bursty functions (statistics.md, "Bursty functions"): a collector that
# runs in bursts of 100 samples, 4 bursts in the baseline and 5 in the
# candidate, is not a +25 % regression one run can show; a steady
# function's +23 % still is. The dispersions perfdiff raises variances to
# are recomputed from the files by tests/tools/block_dispersion.py, and
# the intervals from them by recompute_stats.py. The same samples without
# times (no blocks to look at) make the collector "regressed", as before.
. "$(dirname "$0")/lib.sh"

python3 - "$T" <<'PY'
import random, sys
d = sys.argv[1]
jit = [j for j in range(1, 200, 2) if j != 125]
def write(name, seed, bursts, hash_share, faults, timed=True):
    r = random.Random(seed)
    n, gc = 6000, set()
    for s0 in r.sample(range(0, n - 100, 400), bursts):
        gc.update(range(s0, s0 + 100))
    # page faults under parse: in one burst of the candidate, spread out
    # in the baseline
    fault = set(range(3000, 3000 + faults)) if faults > 10 else \
        set(range(0, n, n // faults)) if faults else set()
    with open(f"{d}/{name}", "w") as f:
        for i in range(n):
            # a millisecond apart, off by an odd number of microseconds
            # (never 125) but for the first gap: no sample on a block's
            # edge, where seconds and microseconds could round apart
            us = i * 1000 + (jit[i % len(jit)] if i > 1 else 0)
            t = "%d.%06d:" % (100 + us // 1000000, us % 1000000) if timed else ""
            leaf = ["gc_mark"] if i in gc else \
                ["hash"] if r.random() < hash_share else ["parse"]
            if i in fault and leaf == ["parse"]:
                leaf = ["clear_page_erms", "exc_page_fault", "parse"]
            f.write(f"app  42 {t}    1000000 cpu-clock:pppH: \n")
            for fr in leaf:
                mod = "[kernel.kallsyms]" if fr in ("clear_page_erms", "exc_page_fault") else "/opt/app/app"
                f.write(f"\t            11fb {fr}+0x2b ({mod})\n")
            f.write("\t            1092 main+0x32 (/opt/app/app)\n")
            f.write("\t           2724a __libc_start_call_main+0x7a (/usr/lib/libc.so.6)\n\n")
for timed in (True, False):
    x = "" if timed else ".untimed"
    write(f"base{x}.txt", 1, 4, 0.2, 4, timed)
    write(f"cand{x}.txt", 2, 5, 0.26, 60, timed)
write("base.nofault.txt", 1, 4, 0.2, 0)
write("cand.nofault.txt", 2, 5, 0.26, 0)
PY

expect_exit 1 pd -f json "$T/base.txt" "$T/cand.txt"
cp "$T/out" "$T/d.json"
python3 "$PD_ROOT/tests/tools/block_dispersion.py" "$T/base.txt" "$T/cand.txt" >"$T/want.json"
if python3 "$PD_ROOT/tests/tools/compare_bursts.py" "$T/want.json" perf-script "$T/d.json"; then ok; else not_ok "bursts"; fi
if python3 - "$T/d.json" <<'PY'; then ok; else not_ok "bursty verdicts"; fi
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: x for x in d["functions"]}
assert d["dispersion"]["lambda"] is None
# the collector: bursty, its +25 % not a verdict; the steady change found
g = f["gc_mark"]["self"]
assert (g["baseline_samples"], g["candidate_samples"]) == (400, 500), g
assert g["burst_dispersion"] > 20 and g["status"] == "inconclusive", g
assert f["hash"]["self"]["status"] == "regressed", f["hash"]
assert f["hash"]["self"]["burst_dispersion"] is None
assert f["parse"]["self"]["burst_dispersion"] is None
# main's total holds the collector's bursts, but it runs the whole time:
# one stretch of the run, judged as the profile's total; the candidate's
# page faults come in one storm (one stretch too), and are system frames
assert f["main"]["total"]["burst_dispersion"] is None
assert f["clear_page_erms"]["system"]
assert f["clear_page_erms"]["self"]["burst_dispersion"] is None
assert any(w.startswith("bursty: gc_mark (") for w in d["warnings"]), d["warnings"]
assert not any("clear_page_erms" in w for w in d["warnings"] if w.startswith("bursty"))
PY
if python3 "$PD_ROOT/tests/tools/recompute_stats.py" "$T/d.json" >"$T/py" 2>&1; then ok; else
	not_ok "recompute: $(tail -3 "$T/py")"
fi

# Without times nothing shows the bursts: the collector "regressed".
expect_exit 1 pd -f json "$T/base.untimed.txt" "$T/cand.untimed.txt"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "untimed"; fi
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: x for x in d["functions"]}
assert f["gc_mark"]["self"]["status"] == "regressed", f["gc_mark"]
assert all(x["self"]["burst_dispersion"] is None for x in d["functions"])
assert not any(w.startswith("bursty") for w in d["warnings"])
PY

# The text report names them; filters that rebuild the tree keep the
# blocks (every sample is under main, so the focus changes nothing).
expect_exit 1 pd "$T/base.txt" "$T/cand.txt"
expect_grep "bursty: gc_mark ([0-9.]*x); " "$T/out"
pd -f json --focus main "$T/base.txt" "$T/cand.txt" >"$T/focus.json" 2>/dev/null
pd -f json --hide __libc_start_call_main "$T/base.txt" "$T/cand.txt" >"$T/hide.json" 2>/dev/null
if python3 - "$T/d.json" "$T/focus.json" "$T/hide.json" <<'PY'; then ok; else not_ok "filters keep blocks"; fi
import json, sys
def bursts(p):
    return {(x["function"], k): x[k]["burst_dispersion"]
            for x in json.load(open(p))["functions"] for k in ("self", "total")}
a, b, c = (bursts(p) for p in sys.argv[1:])
assert a == b, (a, b)
for key, v in c.items():
    assert a[key] == v, (key, a[key], v)
PY
# The same samples (without the kernel frames) in the other formats that
# carry sample times, written by tests/tools/perf_text_convert.py.
for side in base cand; do
	python3 "$PD_ROOT/tests/tools/perf_text_convert.py" "$T/$side.nofault.txt" "$T/$side"
done
# As Chrome .cpuprofile files (times as timeDeltas in us), their arrays
# in either order: the dispersions are the perf text's.
python3 "$PD_ROOT/tests/tools/block_dispersion.py" "$T/base.nofault.txt" "$T/cand.nofault.txt" >"$T/want2.json"
pd -f json "$T/base.cpuprofile" "$T/cand.cpuprofile" >"$T/cp.json" 2>/dev/null
pd -f json "$T/base.re.cpuprofile" "$T/cand.re.cpuprofile" >"$T/cpre.json" 2>/dev/null
if python3 "$PD_ROOT/tests/tools/compare_bursts.py" "$T/want2.json" cpuprofile "$T/cp.json" "$T/cpre.json"; then ok; else
	not_ok "cpuprofile blocks"
fi
# And as samply writes them (Firefox processed format, the stack column
# first, times in ms): the same dispersions. With the samples' columns in
# another order (times before stacks, so stored first) and weighed by CPU
# time (1 ms a sample, the first sample's delta not counted, as it runs
# from before the recording), within a percent: a stack's count is
# spread over its blocks as its samples lie.
pd -f json "$T/base.fx.json" "$T/cand.fx.json" >"$T/fx.json" 2>/dev/null
pd -f json "$T/base.fxre.json" "$T/cand.fxre.json" >"$T/fxre.json" 2>/dev/null
if python3 "$PD_ROOT/tests/tools/compare_bursts.py" "$T/want2.json" firefox "$T/fx.json" "$T/fxre.json:0.01" &&
	grep -q 'weights = CPU time (threadCPUDelta)' "$T/fxre.json"; then ok; else
	not_ok "samply blocks"
fi
# And as an evented speedscope profile (PerfView and dotnet-trace write
# these): each sample lasts until the next, runs of one stack are one
# interval, spread over the blocks it covers. The rule for intervals,
# computed independently (block_dispersion.py --spans), gives the same.
python3 "$PD_ROOT/tests/tools/block_dispersion.py" --spans "$T/base.nofault.txt" "$T/cand.nofault.txt" >"$T/want3.json"
pd -f json "$T/base.speedscope.json" "$T/cand.speedscope.json" >"$T/ss.json" 2>/dev/null
if python3 "$PD_ROOT/tests/tools/compare_bursts.py" "$T/want3.json" speedscope "$T/ss.json:1e-5"; then ok; else
	not_ok "speedscope blocks"
fi
# Two evented profiles in one file share the blocks only on one clock: a
# second copy of the profile in milliseconds keeps the collector bursty;
# the same copy in microseconds puts its times on another scale, and no
# function gets a dispersion at all.
python3 - "$T/base.speedscope.json" "$T/same.json" "$T/mixed.json" <<'PY'
import copy, json, sys
d = json.load(open(sys.argv[1]))
for unit, out in (("milliseconds", sys.argv[2]), ("microseconds", sys.argv[3])):
    e = copy.deepcopy(d)
    q = copy.deepcopy(d["profiles"][0])
    q["name"], q["unit"] = "other", unit
    e["profiles"].append(q)
    json.dump(e, open(out, "w"))
PY
pd -f json "$T/same.json" "$T/same.json" >"$T/same.out" 2>/dev/null
pd -f json "$T/mixed.json" "$T/mixed.json" >"$T/mixed.out" 2>/dev/null
if python3 - "$T/same.out" "$T/mixed.out" <<'PY'; then ok; else not_ok "speedscope units and blocks"; fi
import json, sys
bursts = lambda p: {x["function"]: x["self"]["burst_dispersion"]
                    for x in json.load(open(p))["functions"]
                    if x["self"]["burst_dispersion"] is not None}
same, mixed = bursts(sys.argv[1]), bursts(sys.argv[2])
assert "gc_mark" in same, same
assert mixed == {}, mixed
PY
# A real evented profile of a program in phases (pyinstrument): each
# function's time sits in one stretch of the run, as the program's order
# puts it there, so none is bursty (before, 19 of 24 were, and a change
# in any of them was left inconclusive).
P=$PD_CORPUS/speedscope/pyinstrument-evented.speedscope.json
if corpus_part "the pyinstrument profile"; then
	pd -f json "$P" "$P" >"$T/py.json" 2>/dev/null
	if python3 - "$T/py.json" <<'PY'; then ok; else not_ok "phases are not bursts"; fi
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["functions"]) > 20
assert all(x[k]["burst_dispersion"] is None for x in d["functions"] for k in ("self", "total"))
assert not any(w.startswith("bursty") for w in d["warnings"]), d["warnings"]
PY
fi
# Seven functions that each come in three bursts: the warning names the
# five burstiest, largest first, and counts the rest.
python3 - "$T/many.txt" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(16000):
        blk, fn = i // 1000, "steady"
        if blk % 5 == 1 and i % 1000 < 100 + 40 * (blk % 7):
            fn = "burst%d" % (i % 7)
        us = i * 1000 + 7
        f.write("app  42 %d.%06d:    1000000 cpu-clock:pppH: \n" % (100 + us // 1000000, us % 1000000))
        f.write("\t            11fb %s+0x2b (/opt/app/app)\n" % fn)
        f.write("\t            1092 main+0x32 (/opt/app/app)\n\n")
PY
pd -f json "$T/many.txt" "$T/many.txt" >"$T/many.json" 2>/dev/null
if python3 - "$T/many.json" <<'PY'; then ok; else not_ok "bursty warning"; fi
import json, sys
d = json.load(open(sys.argv[1]))
burst = sorted(((max(x["self"]["burst_dispersion"] or 0, x["total"]["burst_dispersion"] or 0),
                 x["function"]) for x in d["functions"] if not x["system"]), reverse=True)
burst = [b for b in burst if b[0] > 0]
assert len(burst) == 7, burst
w = [x for x in d["warnings"] if x.startswith("bursty: ")]
assert len(w) == 1, d["warnings"]
import re
named = re.findall(r"(burst\d) \(([0-9.]+)x\)", w[0].split(" and ")[0])
assert len(named) == 5 and " and 2 more; " in w[0], w[0]
vals = [float(v) for _, v in named]
assert vals == sorted(vals, reverse=True), w[0]
assert abs(vals[0] - burst[0][0]) < 0.05, (vals, burst)
PY
# With history (check db:REV FILE): the stored commits learned the
# collector as steady (its samples spread evenly, 400 to 415 a run), so
# its learned variance is small; a candidate whose collector came in
# bursts still has that variance raised to its blocks' dispersion. The
# same candidate without times is judged on the learned variance alone:
# the same counts, a narrower interval.
history_db h
tail=dddddddddddddddddddddddddddddddddddddd
for i in 1 2 3 4 5 6; do
	b=$T/h$i
	mkdir -p "$b/profiles"
	printf '{"git_sha": "%02d%s", "scenario": "s", "cache": "warm", "commit_date": "2026-03-%02dT00:00:00Z"}\n' \
		"$i" "$tail" "$i" >"$b/build_meta.json"
	python3 - "$i" >"$b/profiles/run.1.perf.txt" <<'PY'
import sys
i = int(sys.argv[1])
gc = 400 + 3 * i
for k in range(6000):
    leaf = "gc_mark" if k * gc // 6000 != (k + 1) * gc // 6000 else \
        "hash" if k % 5 == 0 else "parse"
    print("app  42 %d.%06d:    1000000 cpu-clock:pppH: " % (100 + k // 1000, k % 1000 * 1000))
    print("\t            11fb %s+0x2b (/opt/app/app)" % leaf)
    print("\t            1092 main+0x32 (/opt/app/app)")
    print("\t           2724a __libc_start_call_main+0x7a (/usr/lib/libc.so.6)\n")
PY
done
expect_exit 0 pd ingest "$T"/h1 "$T"/h2 "$T"/h3 "$T"/h4 "$T"/h5 "$T"/h6
pd check -f json "db:06$tail:s:warm" "$T/cand.txt" >"$T/hist.json" 2>/dev/null
pd check -f json "db:06$tail:s:warm" "$T/cand.untimed.txt" >"$T/hist0.json" 2>/dev/null
if python3 - "$T/hist.json" "$T/hist0.json" <<'PY'; then ok; else not_ok "bursts with history"; fi
import json, math, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a["dispersion"]["source"] == "history", a["dispersion"]
g, g0 = ({x["function"]: x for x in d["functions"]}["gc_mark"]["self"] for d in (a, b))
assert (g["baseline_samples"], g["candidate_samples"]) == (g0["baseline_samples"], g0["candidate_samples"])
assert g["burst_dispersion"] is not None and g["burst_dispersion"] > 20, g
assert g0["burst_dispersion"] is None, g0
width = lambda m: math.log(m["ci_high"] / m["ci_low"])
assert width(g) > 3 * width(g0), (g, g0)
assert g["status"] == "inconclusive", g
PY
finish
