#!/bin/sh
# Chrome / Node .cpuprofile: the corpus files against an independent
# reading (tests/tools/cpuprofile_funcs.py), a fixture counted by hand,
# the old V8 form against the DevTools form of the same recording, real
# profiles from node --cpu-prof with a planted change, and bad input.
. "$(dirname "$0")/lib.sh"
CP=$PD_CORPUS/cpuprofile

check_numbers() { # FILE: perfdiff's per-function numbers = the reference
	pd show -f json "$1" >"$T/ours.json" 2>/dev/null
	python3 "$PD_ROOT/tests/tools/cpuprofile_funcs.py" "$1" >"$T/ref.json"
	if python3 - "$T/ours.json" "$T/ref.json" <<'PY'
import json, sys
ours, ref = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert ours["profile"]["format"] == "cpuprofile"
assert abs(ours["profile"]["total"] - ref["total"]) <= 1e-6 * ref["total"]
o = {}
for f in ours["functions"]:
    s, t = o.get(f["function"], (0, 0))
    o[f["function"]] = (s + f["self"], t + f["total"])
for k, (s, t) in ref["functions"].items():
    assert abs(o[k][0] - s) <= 1e-6 * max(1, s), (k, o[k], s)
    # total: perfdiff counts a sample once per function and module, the
    # reference once per name, so names in several scripts may differ
    assert o[k][1] >= t - 1e-6 * max(1, t), (k, o[k], t)
PY
	then ok; else not_ok "numbers of $1"; fi
}

if corpus_part "the .cpuprofile corpus checks"; then
	for f in "$CP"/*.cpuprofile; do
		check_numbers "$f"
	done
	# the same recording in both forms: equal but for the last sample,
	# whose end the old form gives in whole seconds only
	pd show -f json "$CP/chrome65-simple.cpuprofile" >"$T/new.json"
	pd show -f json "$CP/node10-example.cpuprofile" >"$T/old.json"
	if python3 - "$T/new.json" "$T/old.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
fa = {f["function"]: f for f in a["functions"]}
fb = {f["function"]: f for f in b["functions"]}
assert set(fa) == set(fb) == {"(anonymous)", "a", "b", "c", "d"}, (fa, fb)
assert fa["(anonymous)"]["self"] == fb["(anonymous)"]["self"] == 1060000
assert fa["b"]["total"] == fb["b"]["total"]
assert a["profile"]["samples"] == b["profile"]["samples"] == 29
PY
	then ok; else not_ok "old and new forms of one recording"; fi
	expect_exit 0 pd show "$CP/node-hello.cjs-20231120T211435.cpuprofile"
	expect_grep "warning: 1 (idle) samples" "$T/out"
fi

# The fixture, counted by hand (times 1100 1200 1400 1500 1800 1850 us,
# end 1900): anonymous 100 + 200, =HYPERLINK 100 (total 400 with main
# under it), main 300 self and 700 total (recursion counted once), GC 50,
# idle 50 left out.
check_numbers "$PD_ROOT/fixtures/cpuprofile/tiny.cpuprofile"
pd show -f json "$PD_ROOT/fixtures/cpuprofile/tiny.cpuprofile" >"$T/tiny.json"
if python3 - "$T/tiny.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: (x["self"], x["total"], x["module"]) for x in d["functions"]}
assert d["profile"]["total"] == 750000 and d["profile"]["samples"] == 5
assert f["(anonymous main.js:10)"] == (300000, 300000, "main.js"), f
assert f['=HYPERLINK("x")'] == (100000, 400000, "main.js"), f
assert f["main"] == (300000, 700000, "main.js"), f
assert f["(garbage collector)"][:2] == (50000, 50000), f
assert "(idle)" not in f and "(root)" not in f
PY
then ok; else not_ok "hand-counted fixture"; fi
# the same with timeDeltas before samples and nodes last (the other way
# through the streaming join) gives the same numbers
python3 - "$PD_ROOT/fixtures/cpuprofile/tiny.cpuprofile" >"$T/reordered.cpuprofile" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
order = ["timeDeltas", "samples", "endTime", "startTime", "nodes"]
print(json.dumps({k: d[k] for k in order}))
PY
pd show -f json "$T/reordered.cpuprofile" >"$T/re.json"
if python3 - "$T/tiny.json" "$T/re.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a["functions"] == b["functions"], (a["functions"], b["functions"])
assert a["profile"]["total"] == b["profile"]["total"]
PY
then ok; else not_ok "timeDeltas before samples"; fi
gzip -c "$PD_ROOT/fixtures/cpuprofile/tiny.cpuprofile" >"$T/tiny.cpuprofile.gz"
expect_exit 0 pd show "$T/tiny.cpuprofile.gz"
expect_grep "cpuprofile, 5 samples, total 0.750 ms" "$T/out"
expect_exit 0 pd -f xlsx -o "$T/t.xlsx" "$PD_ROOT/fixtures/cpuprofile/tiny.cpuprofile" "$T/tiny.cpuprofile.gz"

# Real profiles: node --cpu-prof, parseRecord() called three times as often
# (a step that JIT and machine noise cannot hide). V8 runs its baseline
# compiler only: the optimizing tiers sometimes left one run's
# parseRecord deoptimized and five times slower, or inlined it away.
if command -v node >/dev/null; then
	# the flags' names by V8 version (node 20; node 18 says --no-opt)
	jit=
	for f in "--no-turbofan --no-maglev --always-sparkplug" \
		"--no-opt --always-sparkplug"; do
		# shellcheck disable=SC2086
		if node $f -e 0 >/dev/null 2>&1; then jit=$f; break; fi
	done
	node_run() {
		rm -rf "$T/base" "$T/cand"
		for side in base:1 cand:3; do
			# shellcheck disable=SC2086
			node $jit --cpu-prof --cpu-prof-dir="$T/${side%%:*}" --cpu-prof-interval 250 \
				"$PD_ROOT/fixtures/cpuprofile/work.js" 100 "${side#*:}" >/dev/null
		done
		expect_exit 1 pd "$T"/base/*.cpuprofile "$T"/cand/*.cpuprofile -f json
		if python3 - "$T/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: x for x in d["functions"]}
assert d["baseline"]["format"] == "cpuprofile", d["baseline"]
p = f["parseRecord"]
# the JIT inlines part of parseRecord into processBatch: check the sum
both = sum(f[n]["self"]["candidate"] for n in ("parseRecord", "processBatch"))
base = sum(f[n]["self"]["baseline"] for n in ("parseRecord", "processBatch"))
assert 1.5 < both / base < 4.5, both / base
assert p["self"]["status"] == "regressed" or p["total"]["status"] == "regressed", p
assert d["total"]["status"] == "regressed", d["total"]
PY
		then ok; else not_ok "planted change in node profiles"; cat "$T/err" >&2; fi
	}
	measured node_run
	check_numbers "$(ls "$T"/cand/*.cpuprofile)"
	# Bursts in real node profiles: collect() after one round in 50
	# (fixtures/workload/bursty.js, seeded: 6 bursts), work() steadily.
	# The importer puts the samples in time blocks by their timeDeltas,
	# and a history stores each function's dispersion over them
	# (docs/history.md, "Tables", run_bursts): collect()'s far beyond
	# sampling's 1, work()'s about 1. The verdict does not use them.
	node --cpu-prof --cpu-prof-dir="$T/burst/profiles" \
		"$PD_ROOT/fixtures/workload/bursty.js" 300 23 >/dev/null
	printf '{"git_sha": "%040d", "scenario": "s", "cache": "warm"}\n' 1 >"$T/burst/build_meta.json"
	PERFDIFF_DB="$T/burst.db" pd ingest "$T/burst" >"$T/ingest.out" 2>&1 ||
		not_ok "ingest the node profile: $(head -c 300 "$T/ingest.out")"
	if python3 - "$T/burst.db" <<'PY'; then ok; else not_ok "bursts in node profiles"; fi
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
names = dict(c.execute("SELECT id, name FROM functions"))
nrows, blob = c.execute("SELECT nrows, rows FROM run_bursts").fetchone()
def varint(i):
    x = s = 0
    while True:
        b = blob[i]; i += 1; x |= (b & 0x7F) << s; s += 7
        if not b & 0x80:
            return x, i
i, fid, disp = 0, 0, {}
for _ in range(nrows):  # run_packed's layout: id step, tag, numbers
    d, i = varint(i); fid += d
    tag = blob[i]; i += 1
    v = []
    for k in range(4):
        t = tag >> 2 * k & 3
        assert t != 2, tag  # dispersions x 1000 and df are whole numbers
        if t == 1:
            x, i = varint(i); v.append(x)
        else:
            v.append(None)
    disp[names[fid]] = v
assert disp["collect"][0] is not None and disp["collect"][0] > 5000, disp.get("collect")
assert disp["work"][0] is not None and disp["work"][0] < 3000, disp.get("work")
PY
else
	echo "node not installed: node --cpu-prof checks skipped"
fi

# Bad input: one line naming the file and the place, exit 2.
bad() { # NAME CONTENT PATTERN
	printf '%s' "$2" >"$T/$1.cpuprofile"
	expect_exit 2 pd show --from cpuprofile "$T/$1.cpuprofile"
	expect_grep "$3" "$T/err"
	expect_lines 1 "$T/err"
}
node='{"id":1,"callFrame":{"functionName":"(root)","url":""},"children":[2]},{"id":2,"callFrame":{"functionName":"f","url":""}}'
bad truncated "{\"nodes\":[$node],\"samples\":[2,2" "truncated JSON"
bad unknown "{\"nodes\":[$node],\"samples\":[2,9],\"timeDeltas\":[1,1]}" 'samples\[1\]: node id 9 is not in the nodes'
bad count "{\"nodes\":[$node],\"samples\":[2,2],\"timeDeltas\":[1]}" 'timeDeltas: 1 times for 2 samples'
bad child '{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"},"children":[5]}],"samples":[1],"timeDeltas":[1]}' 'a child id that is no node: 5'
bad cycle '{"nodes":[{"id":1,"callFrame":{"functionName":"f"},"children":[2]},{"id":2,"callFrame":{"functionName":"g"},"children":[1]}],"samples":[1],"timeDeltas":[1]}' 'a cycle of parents'
bad type "{\"nodes\":[$node],\"samples\":[\"2\"],\"timeDeltas\":[1]}" 'samples\[0\]: a number was expected'
bad twice '{"nodes":[{"id":1,"callFrame":{"functionName":"f"}},{"id":1,"callFrame":{"functionName":"g"}}],"samples":[1],"timeDeltas":[1]}' 'twice the node id 1'
bad nosamples "{\"nodes\":[$node]}" '"samples" or "timeDeltas" missing'
bad noid '{"nodes":[{"callFrame":{"functionName":"f"}}],"samples":[1],"timeDeltas":[1]}' 'no "id" in node number 0'
bad toplevel '[1,2]' 'top level is an array'
# One sample: it lasts from its time (startTime + its delta, 1500 µs)
# to endTime (2000 µs): 500 µs. It was weighed 0 and refused as empty.
printf '{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":0,"children":[2]},{"id":2,"callFrame":{"functionName":"work","scriptId":"1","url":"file:///a.js","lineNumber":1,"columnNumber":1},"hitCount":1}],"startTime":1000,"endTime":2000,"samples":[2],"timeDeltas":[500]}' >"$T/one.cpuprofile"
expect_exit 0 pd show -f json "$T/one.cpuprofile"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "one-sample cpuprofile"; fi
import json, sys
d = json.load(open(sys.argv[1]))
assert d["profile"]["total"] == 500000 and d["profile"]["samples"] == 1, d["profile"]
assert d["functions"][0]["function"] == "work"
PY
# Formats without threads or processes say that a filter does not apply.
expect_exit 0 pd show "$PD_ROOT/fixtures/cpuprofile/tiny.cpuprofile" --thread main
expect_grep "warning: --thread: a cpuprofile profile names no threads or processes; the whole profile is read" "$T/err"
expect_exit 0 pd show "$PD_ROOT/fixtures/dhat/tiny.dhat.out" --process 1 --thread x
expect_grep "warning: --thread and --process: a dhat profile names no threads or processes" "$T/err"
# An anonymous function of a script in a Windows checkout is named by the
# script's base name, as on Linux: the two profiles are one program.
python3 - "$PD_ROOT/fixtures/cpuprofile/tiny.cpuprofile" "$T/win.cpuprofile" <<'PY'
import sys
s = open(sys.argv[1]).read()
w = s.replace('"url":"file:///app/main.js"', '"url":"G:\\\\projects\\\\app\\\\main.js"')
assert w != s
open(sys.argv[2], "w").write(w)
PY
expect_grep 'G:\\\\projects' "$T/win.cpuprofile"
expect_exit 0 pd show "$T/win.cpuprofile"
expect_grep "(anonymous main.js:10)" "$T/out"
expect_no_grep "projects" "$T/out"
expect_exit 0 pd "$T/win.cpuprofile" "$PD_ROOT/fixtures/cpuprofile/tiny.cpuprofile"
expect_no_grep "added\|removed" "$T/out"
finish
