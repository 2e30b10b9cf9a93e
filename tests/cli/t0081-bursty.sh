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
# main's total holds the collector's bursts; the page faults are system
assert f["main"]["total"]["burst_dispersion"] is not None
assert f["clear_page_erms"]["system"]
assert f["clear_page_erms"]["self"]["burst_dispersion"] is not None
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
expect_grep "bursty: gc_mark ([0-9.]*x), " "$T/out"
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
# The same samples as Chrome .cpuprofile files (times as timeDeltas in
# us, no kernel frames), their arrays in either order: the dispersions
# are the perf text's.
for side in base cand; do
	python3 - "$T/$side.nofault.txt" "$T/$side" <<'PY'
import json, sys
nodes = [{"id": 1, "callFrame": {"functionName": "(root)", "url": ""}, "children": []}]
kids, samples, deltas, last = {}, [], [], 100e6
def node(parent, name):
    key = (parent, name)
    if key not in kids:
        kids[key] = len(nodes) + 1
        nodes.append({"id": kids[key], "children": [],
                      "callFrame": {"functionName": name, "url": "file:///app.js"}})
        nodes[parent - 1]["children"].append(kids[key])
    return kids[key]
stack = None
for line in open(sys.argv[1]):
    if line.startswith("app"):
        t = round(float(line.split()[2][:-1]) * 1e6)
        deltas.append(t - last)
        last, stack = t, []
    elif line.strip():
        stack.append(line.split()[1].split("+0x")[0])
    elif stack is not None:
        at = 1
        for name in reversed(stack):
            at = node(at, name)
        samples.append(at)
        stack = None
d = {"nodes": nodes, "startTime": 100e6, "endTime": last + 1000,
     "samples": samples, "timeDeltas": deltas}
json.dump(d, open(sys.argv[2] + ".cpuprofile", "w"))
d2 = {k: d[k] for k in ("timeDeltas", "samples", "endTime", "startTime", "nodes")}
json.dump(d2, open(sys.argv[2] + ".re.cpuprofile", "w"))
PY
done
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
for side in base cand; do
	python3 - "$T/$side.nofault.txt" "$T/$side" <<'PY'
import json, sys
strings, funcs, frames, stacks, index = [], {}, [], [], {}
samples_stack, samples_time, stack = [], [], None
def string(x):
    strings.append(x)
    return len(strings) - 1
def func(name):
    if name not in funcs:
        funcs[name] = len(funcs)
        frames.append(funcs[name])
        names.append(string(name))
    return funcs[name]
names = []
for line in open(sys.argv[1]):
    if line.startswith("app"):
        # ms from whole microseconds: exact on a block's edge
        t, stack = int(line.split()[2][:-1].replace(".", "")) / 1000, []
    elif line.strip():
        stack.append(line.split()[1].split("+0x")[0])
    elif stack is not None:
        prefix = None
        for depth, name in enumerate(reversed(stack)):
            key = (prefix, func(name))
            if key not in index:
                index[key] = len(stacks)
                stacks.append(key)
            prefix = index[key]
        samples_stack.append(prefix)
        samples_time.append(t)
        stack = None
n = len(samples_stack)
cols = {"length": n, "weightType": "samples", "stack": samples_stack,
        "time": samples_time, "weight": None}
thread = {"name": "app", "tid": 42, "pid": "42", "processName": "app",
          "stringArray": strings,
          "funcTable": {"length": len(funcs), "name": names,
                        "resource": [-1] * len(funcs)},
          "frameTable": {"length": len(frames), "func": frames},
          "stackTable": {"length": len(stacks), "prefix": [k[0] for k in stacks],
                         "frame": [k[1] for k in stacks]},
          "samples": cols}
d = {"meta": {"interval": 1.0, "preprocessedProfileVersion": 49, "version": 24,
              "sampleUnits": {"time": "ms", "eventDelay": "ms", "threadCPUDelta": "µs"}},
     "libs": [], "threads": [thread]}
json.dump(d, open(sys.argv[2] + ".fx.json", "w"))
cols["threadCPUDelta"] = [1000] * n
thread["samples"] = {k: cols[k] for k in ("length", "time", "threadCPUDelta", "weight", "weightType", "stack")}
json.dump(d, open(sys.argv[2] + ".fxre.json", "w"))
PY
done
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
for side in base cand; do
	python3 - "$T/$side.nofault.txt" "$T/$side.speedscope.json" <<'PY'
import json, sys
frames, fidx, events = [], {}, []
def fr(name):
    if name not in fidx:
        fidx[name] = len(frames); frames.append({"name": name, "file": "app"})
    return fidx[name]
samples = []
stack = None
for line in open(sys.argv[1]):
    if line.startswith("app"):
        t, stack = int(line.split()[2][:-1].replace(".", "")) / 1000, []
    elif line.strip():
        stack.append(line.split()[1].split("+0x")[0])
    elif stack is not None:
        samples.append((t, [fr(n) for n in reversed(stack)]))
        stack = None
cur = []
for t, st in samples:
    k = 0
    while k < len(cur) and k < len(st) and cur[k] == st[k]:
        k += 1
    for f in reversed(cur[k:]):
        events.append({"type": "C", "frame": f, "at": t})
    for f in st[k:]:
        events.append({"type": "O", "frame": f, "at": t})
    cur = st
end = samples[-1][0] + 1
for f in reversed(cur):
    events.append({"type": "C", "frame": f, "at": end})
d = {"$schema": "https://www.speedscope.app/file-format-schema.json",
     "shared": {"frames": frames},
     "profiles": [{"type": "evented", "name": "app", "unit": "milliseconds",
                   "startValue": samples[0][0], "endValue": end, "events": events}]}
json.dump(d, open(sys.argv[2], "w"))
PY
done
python3 "$PD_ROOT/tests/tools/block_dispersion.py" --spans "$T/base.nofault.txt" "$T/cand.nofault.txt" >"$T/want3.json"
pd -f json "$T/base.speedscope.json" "$T/cand.speedscope.json" >"$T/ss.json" 2>/dev/null
if python3 "$PD_ROOT/tests/tools/compare_bursts.py" "$T/want3.json" speedscope "$T/ss.json:1e-5"; then ok; else
	not_ok "speedscope blocks"
fi
finish
