#!/bin/sh
# Counters in the history's trends: sixteen commits whose perf.stat.txt
# (hand-written, one run each) steps at the ninth, task-clock and cycles
# +30 % with the same instructions, so IPC falls from 2 to 8/5.2 (-23.1 %),
# while context switches wander within their noise. trend must put one
# alert on the ninth commit naming exactly those three counters; every
# format shows them with their own units and escapes their names; a trend
# narrowed to functions leaves them out; counters next to stacks keep
# the functions' alerts as they were.
. "$(dirname "$0")/lib.sh"
history_db h
tail=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
long=$(python3 -c 'print("\u00e9" * 150)')
mkc() { # DIR N SCENARIO: bundle of commit N with its perf.stat.txt
	mkdir -p "$1/profiles"
	printf '{"git_sha": "%02d%s", "scenario": "%s", "cache": "warm", "commit_date": "2026-05-%02dT00:00:00Z"}\n' \
		"$2" "$tail" "$3" "$2" >"$1/build_meta.json"
	j=$(($2 % 3 - 1)) # -1, 0, 1
	tc=$((1000 + j)) cy=4000 cs=$((10 + 2 * j))
	if [ "$2" -ge 9 ]; then tc=$((1300 + j)) cy=5200; fi
	{
		echo " Performance counter stats for './app':"
		echo
		printf '  %d.00 msec task-clock   #    0.998 CPUs utilized\n' "$tc"
		printf '  %d      context-switches   #   1.0 /sec\n' "$cs"
		printf '  %d,000,000      cycles   #    4.000 GHz\n' "$cy"
		echo '  8,000,000,000      instructions   #    2.00  insn per cycle'
		echo '  3      a<b>&c'
		# a name of 301 bytes: charts cut it at 250, between characters
		printf '  4      a%s\n' "$long"
	} >"$1/profiles/perf.stat.txt"
}
c=1
while [ "$c" -le 16 ]; do
	mkc "$T/s$c" "$c" st
	c=$((c + 1))
done
expect_exit 0 pd ingest "$T"/s*

expect_exit 1 pd trend --scenario st -f json
cp "$T/out" "$T/t.json"
if python3 - "$T/t.json" "09$tail" "08$tail" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["tool"] == "perf-stat", d["tool"]
(a,) = d["alerts"]
assert a["first_bad"] == sys.argv[2] and a["last_good"] == sys.argv[3], a
assert a["functions"] == [], a["functions"]
moved = {c["name"]: c["change_pct"] for c in a["counters"]}
assert set(moved) == {"task-clock / msec", "cycles", "IPC / insn per cycle"}, moved
assert abs(moved["cycles"] - 30) < 1e-9, moved
assert abs(moved["IPC / insn per cycle"] - (8 / 5.2 / 2 - 1) * 100) < 1e-9, moved
# task-clock: the segments' means, commits 9-16 over 1-8; the noise
# -1, 0, +1 by commit sums to +1 over 1-8 and to -1 over 9-16
assert abs(moved["task-clock / msec"] - ((1300 - 1 / 8) / (1000 + 1 / 8) - 1) * 100) < 1e-9, moved
s = {x["name"]: x for x in d["series"]}
assert s["total"]["kind"] == "total"
tc = s["task-clock / msec"]
assert tc["kind"] == "counter" and tc["unit"] == "msec", tc
assert not tc["higher_is_better"] and s["IPC / insn per cycle"]["higher_is_better"]
assert [p["mean"] for p in tc["points"]] == \
    [1000 + (c % 3 - 1) + (300 if c >= 9 else 0) for c in range(1, 17)]
assert s["context-switches"]["unit"] == "" and not s["context-switches"]["change_points"]
assert s["a<b>&c"]["points"][0]["runs"] == [3]
PY
then ok; else not_ok "counter trend (json)"; fi

expect_exit 1 pd trend --scenario st
expect_grep "^ALERT st/warm: at 09bbbbbbbb; counters: IPC / insn per cycle -23.1 % (worse), cycles +30.0 %, task-clock / msec +30.0 %$" "$T/out"
expect_grep "total, 0 functions and 7 counters" "$T/out"
expect_grep "^cycles  *4000000000  *5200000000  *+30.0 %" "$T/out"
expect_exit 0 pd culprit --scenario st
expect_grep "first bad: 09$tail" "$T/out"
# functions only, in a history of counters alone: no function matches
# (the counters are left out with --function: "mix" below)
expect_exit 2 pd trend --scenario st --function main
expect_grep "no stored function" "$T/err"

# Every format escapes the counters' names and says their units
expect_exit 1 pd trend --scenario st -f md
expect_grep "| <code>a&#60;b&#62;&#38;c</code> | 3 | 3 |" "$T/out"
expect_grep "own units" "$T/out"
expect_exit 1 pd trend --scenario st -f html -o "$T/t.html"
expect_no_grep "a<b>" "$T/t.html"
expect_grep "<h2>a&lt;b&gt;&amp;c</h2>" "$T/t.html"
expect_grep 'text-anchor="middle">msec</text>' "$T/t.html"
if command -v xlsx2csv >/dev/null; then
	expect_exit 1 pd trend --scenario st -f xlsx -o "$T/t.xlsx"
	xlsx2csv -s 2 "$T/t.xlsx" >"$T/series.csv"
	expect_grep "task-clock / msec (msec)" "$T/series.csv"
	expect_grep "^09$tail,2026-05-09T00:00:00Z,1,0,1.538" "$T/series.csv"
	if python3 - "$T/t.xlsx" <<'PY'
import re, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
titles = []
for n in z.namelist():
    if n.startswith("xl/charts/chart"):
        x = z.read(n).decode("utf-8")  # fails on a cut character
        titles += re.findall(r"<a:t>([^<]*)</a:t>", x)
long = [t for t in titles if t.startswith("a\u00e9")]
# 'a' and 124 two-byte characters: 249 bytes, the 250th byte would split one
assert long == ["a" + "\u00e9" * 124], [len(t.encode()) for t in long]
PY
	then ok; else not_ok "chart titles cut between characters"; fi
fi

# Counters next to stacks: the same functions' trend as without them,
# and the counters' alert on top. Folded runs, parse steps at commit 9.
c=1
while [ "$c" -le 16 ]; do
	b=$T/m$c
	mkc "$b" "$c" mix
	p=1000
	[ "$c" -ge 9 ] && p=1300
	printf 'main;parse %d\nmain;read 2000\n' "$p" >"$b/profiles/run.1.folded"
	printf 'main;parse %d\nmain;read 2001\n' "$p" >"$b/profiles/run.2.folded"
	c=$((c + 1))
done
expect_exit 0 pd ingest "$T"/m*
expect_exit 1 pd trend --scenario mix -f json
cp "$T/out" "$T/m.json"
expect_exit 1 pd trend --scenario mix --function . -f json
cp "$T/out" "$T/f.json"
if python3 - "$T/m.json" "$T/f.json" <<'PY'
import json, sys
m, f = (json.load(open(p)) for p in sys.argv[1:])
(a,) = m["alerts"]
assert [x["name"] for x in a["functions"]] == [x["name"] for x in f["alerts"][0]["functions"]]
assert "parse" in [x["name"] for x in a["functions"]], a
assert {c["name"] for c in a["counters"]} == {"task-clock / msec", "cycles", "IPC / insn per cycle"}
assert a["total_change_pct"] == f["alerts"][0]["total_change_pct"]
# two stacked runs a commit, the counters joined to one of them
tc = [s for s in m["series"] if s["name"] == "task-clock / msec"][0]
assert all(len(p["runs"]) == 1 for p in tc["points"])
assert not [s for s in f["series"] if s["kind"] == "counter"]
PY
then ok; else not_ok "counters next to stacks"; fi
finish
