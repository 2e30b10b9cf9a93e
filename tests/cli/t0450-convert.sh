#!/bin/sh
# perfdiff convert: every corpus profile perfdiff reads, written as
# speedscope JSON and as folded stacks, read back, gives the same
# per-function self and total as the original (speedscope by function
# and module, folded by name: folded stacks carry no modules). Threads
# become separate speedscope profiles; bad input and output fail cleanly.
. "$(dirname "$0")/lib.sh"

# same ORIG BACK BY_MODULE: speedscope keeps names and modules; folded
# stacks keep names only, so there a name that several modules share (or
# an unsymbolized module+0xRVA, whose module was its identity) is compared
# on self alone, and the weight of empty stacks has nowhere to go.
same() {
	python3 - "$@" <<'PY'
import json, re, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
by_mod = sys.argv[3] == "1"
def key(f):
    if by_mod:
        return (f["function"], f["module"])
    return re.sub(r"\+0x[0-9a-fA-F]+$", "", f["function"].replace(";", ":"))
def table(d):
    t, srcs = {}, {}
    for f in d["functions"]:
        k = key(f)
        s, u = t.get(k, (0, 0))
        t[k] = (s + f["self"], u + f["total"])
        srcs.setdefault(k, set()).add((f["function"], f["module"]))
    return t, srcs
(ta, src), (tb, _) = table(a), table(b)
want = a["profile"]["total"] if by_mod else sum(s for s, _ in ta.values())
got = b["profile"]["total"]
assert abs(want - got) <= 1e-9 * abs(want) + 1e-9, (want, got)
units = {a["profile"]["unit"], b["profile"]["unit"]}
# speedscope has one unit for counts ("none"), read back as samples
assert len(units) == 1 or units == {"count", "samples"} or not by_mod, units
assert set(ta) == set(tb), sorted(set(ta) ^ set(tb), key=str)[:4]
close = lambda x, y: abs(x - y) <= 1e-9 * max(abs(x), abs(y)) + 1e-9
for k in ta:
    assert close(ta[k][0], tb[k][0]), (k, ta[k], tb[k])
    if len(src[k]) == 1:
        assert close(ta[k][1], tb[k][1]), (k, ta[k], tb[k])
PY
}

n=0
for dir in perf-script folded speedscope firefox-processed firefox-gecko \
	wpa-csv cpuprofile pprof dhat; do
	[ -d "$PD_CORPUS/$dir" ] || continue
	for f in "$PD_CORPUS/$dir"/*; do
		# only what perfdiff reads as stacks (not symbol replies, not
		# WPA metric tables)
		pd show -f json "$f" >"$T/orig.json" 2>/dev/null || continue
		grep -q '"function"' "$T/orig.json" || continue
		n=$((n + 1))
		if pd convert "$f" -o "$T/c.speedscope.json" 2>"$T/err" &&
			pd show -f json "$T/c.speedscope.json" >"$T/back.json" 2>/dev/null &&
			same "$T/orig.json" "$T/back.json" 1; then ok; else
			not_ok "speedscope round trip of $f: $(head -c 300 "$T/err")"
		fi
		if pd convert -f folded "$f" -o "$T/c.folded" 2>"$T/err" &&
			pd show -f json "$T/c.folded" >"$T/back.json" 2>/dev/null &&
			same "$T/orig.json" "$T/back.json" 0; then ok; else
			not_ok "folded round trip of $f: $(head -c 300 "$T/err")"
		fi
	done
done
echo "converted $n corpus profiles"

# Threads: the 25-thread samply profile gives one speedscope profile per
# thread with samples, named as the reports name them.
S=$PD_CORPUS/firefox-processed/samply-linux-v49-25threads.json.gz
if [ -f "$S" ]; then
	pd convert "$S" -o "$T/threads.json" 2>/dev/null
	pd show -f json "$S" >"$T/orig.json" 2>/dev/null
	if python3 - "$T/threads.json" "$T/orig.json" <<'PY'
import json, sys
d, o = (json.load(open(p)) for p in sys.argv[1:])
assert d["$schema"] == "https://www.speedscope.app/file-format-schema.json"
names = [p["name"] for p in d["profiles"]]
assert len(names) == len(set(names)) > 1, names
assert all(p["type"] == "sampled" and p["unit"] == "nanoseconds" for p in d["profiles"])
for p in d["profiles"]:
    assert len(p["samples"]) == len(p["weights"])
    assert abs(sum(p["weights"]) - p["endValue"]) <= 1e-6 * p["endValue"]
    nf = len(d["shared"]["frames"])
    assert all(0 <= i < nf for s in p["samples"] for i in s)
tot = sum(p["endValue"] for p in d["profiles"])
assert abs(tot - o["profile"]["total"]) <= 1e-6 * tot
PY
	then ok; else not_ok "one speedscope profile per thread"; fi
fi

# A perf capture: one profile per command, modules as frame files.
pd convert "$PD_ROOT/fixtures/demo/base.perf.txt.gz" >"$T/demo.json"
if python3 - "$T/demo.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
fr = {f["name"]: f.get("file") for f in d["shared"]["frames"]}
assert fr["parse_record"] == "/opt/demo/workload", fr
assert [p["name"] for p in d["profiles"]] == ["workload"], d["profiles"]
assert d["exporter"].startswith("perfdiff ")
PY
then ok; else not_ok "perf capture to speedscope"; fi

# Names with quotes, backslashes and control characters stay JSON
printf 'main;say "hi"\\\\x;tab\there 3\nmain;=cmd 2\n' >"$T/odd.folded"
pd convert "$T/odd.folded" -o "$T/odd.json"
if python3 - "$T/odd.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
names = {f["name"] for f in d["shared"]["frames"]}
assert 'say "hi"\\\\x' in names and "tab\there" in names and "=cmd" in names, names
assert d["profiles"][0]["unit"] == "none" and d["profiles"][0]["endValue"] == 5
PY
then ok; else not_ok "escaped names"; fi

# A WPA table without stacks has nothing to convert
W=$PD_CORPUS/wpa-csv/Disk_Usage_Counts_by_IO_Type_Priority.csv.bz2
if [ -f "$W" ]; then
	expect_exit 2 pd convert "$W" -o "$T/never.json"
	expect_grep "no stacks to convert" "$T/err"
fi

# Errors: bad input leaves no output file; bad options exit 2
printf 'not a profile\n' >"$T/bad.txt"
expect_exit 2 pd convert "$T/bad.txt" -o "$T/never.json"
[ ! -e "$T/never.json" ] && ok || not_ok "output written for bad input"
expect_exit 2 pd convert -f xlsx "$PD_ROOT/fixtures/demo/base.perf.txt.gz"
expect_grep "speedscope or folded" "$T/err"
expect_exit 2 pd convert
expect_exit 0 pd help convert
expect_grep "usage: perfdiff convert" "$T/out"

echo "convert: $pass passed, $failed failed"
[ "$failed" -eq 0 ]
