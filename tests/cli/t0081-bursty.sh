#!/bin/sh
# Time blocks: the importers cut a profile's samples into time blocks
# by their times, and a history stores each run's dispersion over them
# (docs/history.md, "Tables", run_bursts); the verdict no longer looks at
# them. A collector runs in bursts of 100 samples, 4 bursts in the
# baseline and 5 in the candidate (400 -> 500 samples); hash takes 20 %
# of the other samples in the baseline and 26 % in the candidate. The
# same samples without times (no blocks) give the same report, word for
# word. The dispersions stored from each format's sample times are
# recomputed from the samples by tests/tools/block_dispersion.py.
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

mkdir "$T/timed" "$T/untimed"
for side in base cand; do
	cp "$T/$side.txt" "$T/timed/$side.txt"
	cp "$T/$side.untimed.txt" "$T/untimed/$side.txt"
done
# Block scatter does not change the verdict: the same report with and
# without the sample times, as JSON and as text.
cd "$T/timed" && expect_exit 1 pd -f json base.txt cand.txt
cp "$T/out" "$T/d.json"
cd "$T/untimed" && expect_exit 1 pd -f json base.txt cand.txt
cp "$T/out" "$T/d0.json"
cd "$T" || exit 1
if cmp -s "$T/d.json" "$T/d0.json"; then ok; else not_ok "times change the JSON report: $(diff "$T/d.json" "$T/d0.json" | head -5)"; fi
(cd "$T/timed" && pd base.txt cand.txt >"$T/d.txt" 2>&1)
(cd "$T/untimed" && pd base.txt cand.txt >"$T/d0.txt" 2>&1)
if cmp -s "$T/d.txt" "$T/d0.txt"; then ok; else not_ok "times change the text report: $(diff "$T/d.txt" "$T/d0.txt" | head -5)"; fi
expect_no_grep "bursty" "$T/d.txt"
if python3 - "$T/d.json" <<'PY'; then ok; else not_ok "the steady change found"; fi
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: x for x in d["functions"]}
g = f["gc_mark"]["self"]
assert (g["baseline_samples"], g["candidate_samples"]) == (400, 500), g
assert f["hash"]["self"]["status"] == "regressed", f["hash"]
assert f["clear_page_erms"]["system"]
assert not any(w.startswith("bursty") for w in d["warnings"]), d["warnings"]
PY

# The blocks as each importer reads them, from what a history stores of
# a run: every format that carries sample times gives the dispersions
# the rule computes from the perf text's samples (those without the
# page faults: a run is stored whole, kernel time among the program's,
# where the rule sets the kernel apart).
export PERFDIFF_DB="$T/blocks.db"
n=0
stored() { # FILE: a bundle of its own holding FILE; its sha in $sha
	n=$((n + 1))
	sha=$(printf '%02d%038d' "$n" 0)
	mkdir -p "$T/b$n/profiles"
	cp "$1" "$T/b$n/profiles/"
	printf '{"git_sha": "%s", "scenario": "blocks", "cache": "warm", "commit_date": "2026-03-%02dT00:00:00Z"}\n' \
		"$sha" "$n" >"$T/b$n/build_meta.json"
	pd ingest "$T/b$n" >"$T/ingest.out" 2>&1 || not_ok "ingest $1: $(head -c 300 "$T/ingest.out")"
}
want() { # FILE [--spans]: the rule's dispersions of FILE's samples
	python3 "$PD_ROOT/tests/tools/block_dispersion.py" --run ${2-} "$1" >"$1.want"
}
for side in base cand; do
	want "$T/$side.nofault.txt" --spans
	mv "$T/$side.nofault.txt.want" "$T/$side.spans.want"
	want "$T/$side.nofault.txt"
	mv "$T/$side.nofault.txt.want" "$T/$side.samples.want"
	stored "$T/$side.nofault.txt"
	if python3 "$PD_ROOT/tests/tools/compare_bursts.py" "$PERFDIFF_DB" perf-script "$sha=$T/$side.samples.want"; then ok; else
		not_ok "perf text blocks ($side)"
	fi
	# The same samples in the other formats that carry sample times,
	# written by tests/tools/perf_text_convert.py.
	python3 "$PD_ROOT/tests/tools/perf_text_convert.py" "$T/$side.nofault.txt" "$T/$side"
done
for side in base cand; do
	# As Chrome .cpuprofile files (times as timeDeltas in us), their
	# arrays in either order: the perf text's dispersions.
	stored "$T/$side.cpuprofile"
	a=$sha
	stored "$T/$side.re.cpuprofile"
	if python3 "$PD_ROOT/tests/tools/compare_bursts.py" "$PERFDIFF_DB" cpuprofile \
		"$a=$T/$side.samples.want" "$sha=$T/$side.samples.want"; then ok; else
		not_ok "cpuprofile blocks ($side)"
	fi
	# As samply writes them (Firefox processed format, the stack column
	# first, times in ms): the same dispersions. With the samples'
	# columns in another order (times before stacks, so stored first)
	# and weighed by CPU time (1 ms a sample, the first sample's delta
	# not counted, as it runs from before the recording), within a
	# percent: a stack's count is spread over its blocks as its samples
	# lie.
	stored "$T/$side.fx.json"
	a=$sha
	stored "$T/$side.fxre.json"
	if python3 "$PD_ROOT/tests/tools/compare_bursts.py" "$PERFDIFF_DB" firefox \
		"$a=$T/$side.samples.want" "$sha=$T/$side.samples.want:0.01"; then ok; else
		not_ok "samply blocks ($side)"
	fi
	# And as an evented speedscope profile (PerfView and dotnet-trace
	# write these): each sample lasts until the next, runs of one stack
	# are one interval, spread over the blocks it covers. The rule for
	# intervals, computed independently (block_dispersion.py --spans),
	# gives the same.
	stored "$T/$side.speedscope.json"
	if python3 "$PD_ROOT/tests/tools/compare_bursts.py" "$PERFDIFF_DB" speedscope "$sha=$T/$side.spans.want:1e-5"; then ok; else
		not_ok "speedscope blocks ($side)"
	fi
done
pd -f json "$T/base.fxre.json" "$T/cand.fxre.json" >"$T/fxre.json" 2>/dev/null
expect_grep 'weights = CPU time (threadCPUDelta)' "$T/fxre.json"
# Two evented profiles in one file share the blocks only on one clock: a
# second copy of the profile in milliseconds keeps the collector's
# bursts; the same copy in microseconds puts its times on another scale,
# and no function gets a dispersion at all.
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
stored "$T/same.json"
same=$sha
stored "$T/mixed.json"
mixed=$sha
if python3 - "$PERFDIFF_DB" "$same" "$mixed" <<'PY'; then ok; else not_ok "speedscope units and blocks"; fi
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
def rows(sha):
    r = c.execute("SELECT b.nrows FROM runs r LEFT JOIN run_bursts b ON b.run_id = r.id"
                  " WHERE r.git_sha = ?", (sha,)).fetchall()
    assert len(r) == 1, r
    return r[0][0] or 0
assert rows(sys.argv[2]) >= 2, rows(sys.argv[2])
assert rows(sys.argv[3]) == 0, rows(sys.argv[3])
PY
# Seven functions that each come in three bursts: taken out of the
# steady samples in turn (the burstiest first), each keeps its own
# dispersion, as the rule computes it.
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
want "$T/many.txt"
stored "$T/many.txt"
if python3 "$PD_ROOT/tests/tools/compare_bursts.py" --collector burst0 "$PERFDIFF_DB" perf-script "$sha=$T/many.txt.want"; then ok; else
	not_ok "seven bursty functions"
fi
expect_exit 0 pd "$T/many.txt" "$T/many.txt"
expect_no_grep "bursty" "$T/out"
expect_no_grep "bursty" "$T/err"

# With history (check db:REV FILE): the stored commits hold the
# collector steady (its samples spread evenly, 403 to 418 a run) and
# their block dispersions; a candidate whose collector came in bursts is
# judged as the same candidate without times.
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
pd check -f json "db:06$tail:s:warm" "$T/timed/cand.txt" >"$T/hist.json" 2>/dev/null
pd check -f json "db:06$tail:s:warm" "$T/untimed/cand.txt" >"$T/hist0.json" 2>/dev/null
if python3 - "$T/hist.json" "$T/hist0.json" <<'PY'; then ok; else not_ok "bursts with history"; fi
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a["dispersion"]["source"] == "history", a["dispersion"]
for d in (a, b):
    del d["candidate"]["source"]
assert a == b, [(x["function"], x["self"], y["self"]) for x, y in zip(a["functions"], b["functions"]) if x != y]
g = {x["function"]: x for x in a["functions"]}["gc_mark"]["self"]
assert g["candidate_samples"] == 500, g
PY
finish
