#!/bin/sh
# perfdiff convert: every corpus profile perfdiff reads, written as
# speedscope JSON and as folded stacks and read back, keeps what a
# verdict rests on: each function's self and total and its sample counts
# (speedscope by function and module, with perfdiff's own keys for the
# counts, unit and exactness; folded by name, as folded stacks carry no
# modules), or folded is refused with the reason (exact counts, or
# weights that are no fixed multiple of the counts: read back, either
# number alone would be judged differently). A pair's verdict is the same
# after conversion. Threads become separate speedscope profiles; bad input
# and output fail cleanly.
. "$(dirname "$0")/lib.sh"

# same ORIG BACK BY_MODULE: speedscope keeps names, modules, weights and
# counts; folded keeps names and the counts (and the weights, when they
# are a fixed multiple of the counts: then shares are compared), so there
# a name that several modules share is compared on self alone, and the
# weight of empty stacks has nowhere to go.
same() {
	python3 - "$@" <<'PY'
import json, re, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
by_mod = sys.argv[3] == "1"
def key(f):
    if by_mod:
        return (f["function"], f["module"])
    return f["function"].replace(";", ":")
def table(d):
    t, srcs = {}, {}
    tot = d["profile"]["total"] if by_mod else 1.0
    for f in d["functions"]:
        k = key(f)
        s, u, c = t.get(k, (0, 0, 0))
        t[k] = (s + f["self"] / tot, u + f["total"] / tot,
                c + f["self_samples"])
        srcs.setdefault(k, set()).add((f["function"], f["module"]))
    return t, srcs
(ta, src), (tb, _) = table(a), table(b)
if not by_mod:  # shares of what the functions hold
    sa, sb = (sum(s for s, _, _ in t.values()) for t in (ta, tb))
    ta = {k: (s / sa, u / sa, c) for k, (s, u, c) in ta.items()}
    tb = {k: (s / sb, u / sb, c) for k, (s, u, c) in tb.items()}
else:
    assert a["profile"]["unit"] == b["profile"]["unit"], (a["profile"], b["profile"])
    assert abs(a["profile"]["samples"] - b["profile"]["samples"]) <= 1e-9 * a["profile"]["samples"]
assert set(ta) == set(tb), sorted(set(ta) ^ set(tb), key=str)[:4]
close = lambda x, y: abs(x - y) <= 1e-9 * max(abs(x), abs(y)) + 1e-12
# folded writes a number within 1e-9 of a whole one as that whole number
# (src/report/folded.c): the residue an evented profile's subtractions
# leave in a count (9.5e-10 samples on a function of a dotnet-trace
# export) reads back as 0, so counts may differ by such residues
count_close = lambda x, y: close(x, y) or abs(x - y) <= 1e-6
for k in ta:
    assert close(ta[k][0], tb[k][0]), (k, ta[k], tb[k])
    assert count_close(ta[k][2], tb[k][2]), ("sample counts", k, ta[k], tb[k])
    if len(src[k]) == 1:
        assert close(ta[k][1], tb[k][1]), (k, ta[k], tb[k])
PY
}

if corpus_part "the round trips of the corpus profiles"; then
	n=0
	refused=0
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
			rm -f "$T/c.folded"
			pd convert -f folded "$f" -o "$T/c.folded" 2>"$T/err"
			st=$?
			if [ $st -eq 2 ]; then
				# refused: one line with the reason, nothing written
				refused=$((refused + 1))
				if grep -q "exact .* counts cannot\|not a fixed multiple" "$T/err" &&
					[ ! -e "$T/c.folded" ]; then ok; else
					not_ok "folded refusal of $f: $(head -c 300 "$T/err")"
				fi
				continue
			fi
			if [ $st -eq 0 ] &&
				pd show -f json "$T/c.folded" >"$T/back.json" 2>/dev/null &&
				same "$T/orig.json" "$T/back.json" 0; then ok; else
				not_ok "folded round trip of $f: $(head -c 300 "$T/err")"
			fi
		done
	done
	[ "$refused" -lt "$n" ] && ok || not_ok "every folded conversion refused"
	echo "converted $n corpus profiles"
fi

# A pair's verdicts survive conversion: every function's status and the
# exit status are those of the originals (folded used to write one
# "sample" per nanosecond of a time-weighted profile, so an inconclusive
# pair came back regressed). The demo pair is perf with a fixed period
# (500250 ns on every sample of both files, counted with zcat and awk):
# folded holds its sample counts and says so.
D=$PD_ROOT/fixtures/demo
verdicts() { # A B OUT: exit status and each function's statuses
	pd -f json "$1" "$2" >"$T/v.json" 2>/dev/null
	echo "exit $?" >"$3"
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["verdict"])
for f in sorted(d["functions"], key=lambda f: f["function"]):
    print(f["function"], f["self"]["status"], f["total"]["status"])
' "$T/v.json" >>"$3"
}
verdicts "$D/base.perf.txt.gz" "$D/cand.perf.txt.gz" "$T/v-orig"
for fmt in speedscope folded; do
	pd convert -f $fmt "$D/base.perf.txt.gz" -o "$T/base.$fmt" 2>"$T/err.$fmt"
	pd convert -f $fmt "$D/cand.perf.txt.gz" -o "$T/cand.$fmt" 2>>"$T/err.$fmt"
	verdicts "$T/base.$fmt" "$T/cand.$fmt" "$T/v-$fmt"
	if cmp -s "$T/v-orig" "$T/v-$fmt"; then ok; else
		not_ok "verdicts after $fmt: $(diff "$T/v-orig" "$T/v-$fmt" | head -c 400)"
	fi
done
expect_grep "regressed" "$T/v-orig"
expect_grep "folded stacks hold sample counts: one sample here is 0.500 ms" "$T/err.folded"
# A time-weighted profile (a .cpuprofile: each sample weighs its own time
# delta) is refused as folded with the reason, unless --counts asks for
# sample counts; DHAT's exact counts are refused either way.
if corpus_part "the refusals of a .cpuprofile and a DHAT profile"; then
	CP=$PD_CORPUS/cpuprofile/chrome65-simple.cpuprofile
	expect_exit 2 pd convert -f folded "$CP" -o "$T/never.folded"
	expect_lines 1 "$T/err"
	expect_grep "not a fixed multiple of its sample counts.*--counts" "$T/err"
	[ ! -e "$T/never.folded" ] && ok || not_ok "refused folded written"
	expect_exit 2 pd show -f folded "$CP"
	expect_exit 0 pd convert -f folded --counts "$CP" -o "$T/counts.folded"
	pd show -f json "$CP" >"$T/cp.json"
	if python3 - "$T/cp.json" "$T/counts.folded" <<'PY'; then ok; else not_ok "--counts"; fi
import json, sys
d = json.load(open(sys.argv[1]))
n = sum(int(l.rsplit(" ", 1)[1]) for l in open(sys.argv[2]))
assert n == d["profile"]["samples"], (n, d["profile"]["samples"])
PY
	DH=$PD_CORPUS/dhat/dhat-rs-heap-http-server.json
	expect_exit 2 pd convert -f folded --counts "$DH"
	expect_grep "exact bytes counts cannot be written as folded" "$T/err"
fi

# Threads: the 25-thread samply profile gives one speedscope profile per
# thread with samples, named as the reports name them.
S=$PD_CORPUS/firefox-processed/samply-linux-v49-25threads.json.gz
if have_extra firefox-processed/samply-linux-v49-25threads.json.gz; then
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

# A perf capture: one profile per command, modules as frame files (the
# demo baseline's workload was /tmp/demo2/base/workload, as its text says).
pd convert "$PD_ROOT/fixtures/demo/base.perf.txt.gz" >"$T/demo.json"
if python3 - "$T/demo.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
fr = {f["name"]: f.get("file") for f in d["shared"]["frames"]}
assert fr["parse_record"] == "/tmp/demo2/base/workload", fr["parse_record"]
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
if have_extra wpa-csv/Disk_Usage_Counts_by_IO_Type_Priority.csv.bz2; then
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

# A name with a byte that is no UTF-8: the speedscope output is UTF-8
# JSON (U+FFFD in its place; the raw byte made the file unreadable to
# every JSON reader, perfdiff included), and it matches the original.
printf 'main;bad\377name 500\nmain;ok 300\n' >"$T/u8.folded"
expect_exit 0 pd convert "$T/u8.folded" -o "$T/u8.json"
if python3 -c 'import json, sys; d = json.load(open(sys.argv[1], encoding="utf-8")); assert "bad\ufffdname" in [f["name"] for f in d["shared"]["frames"]]' "$T/u8.json"; then ok; else not_ok "speedscope output with a non-UTF-8 name is no UTF-8 JSON"; fi
expect_exit 0 pd -f json "$T/u8.folded" "$T/u8.json"
if python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); s = [f["self"]["status"] for f in d["functions"]]; assert "added" not in s and "removed" not in s, s' "$T/out"; then ok; else not_ok "a non-UTF-8 name and its converted form are two functions"; fi
# Control characters, quotes and backslashes in a name: escaped as the
# JSON reports escape them (report/jsonw.h), and read back the same.
printf 'main;ok 300\nmain;a\001b\tc"d\\e\037f 500\n' >"$T/ctl.folded"
expect_exit 0 pd convert --from folded "$T/ctl.folded" -o "$T/ctl.json"
grep -q 'a\\u0001b\\tc\\"d\\\\e\\u001ff' "$T/ctl.json" && ok || not_ok "escapes: $(grep -o '"a[^,]*' "$T/ctl.json")"
if python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert "a\x01b\tc\"d\\e\x1ff" in [f["name"] for f in d["shared"]["frames"]]' "$T/ctl.json"; then ok; else not_ok "a name with control characters does not read back"; fi

echo "convert: $pass passed, $failed failed"
[ "$failed" -eq 0 ]
