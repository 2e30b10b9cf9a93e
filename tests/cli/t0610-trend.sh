#!/bin/sh
# Trends, culprit and check on a synthetic history (folded profiles, so
# the numbers are known exactly): ten commits of three runs, parse's
# samples step from 1000 to 1300 at the sixth commit while read and other
# stay put within 1 %. Also the error paths, each a one-line message.
. "$(dirname "$0")/lib.sh"
history_db h
tail=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
sha() { printf '%02d%s' "$1" "$tail"; }
c=1
while [ "$c" -le 10 ]; do
	b=$T/b$c
	mkdir -p "$b/profiles"
	printf '{"git_sha": "%02d%s", "scenario": "syn", "cache": "warm", "commit_date": "2026-04-%02dT00:00:00Z"}\n' \
		"$c" "$tail" "$c" >"$b/build_meta.json"
	r=1
	while [ "$r" -le 3 ]; do
		# run-to-run noise of a few samples that cancels within a commit
		j=$(( (r - 2) * (1 + c % 3) ))
		p=1000; [ "$c" -ge 6 ] && p=1300
		{
			echo "main;parse $((p + j))"
			echo "main;read $((2000 - j))"
			echo "main;other $((500 + j))"
			echo "main;=cmd|' /C calc'!A0 $((300 + j))"
			echo "main;idle 1" # weights of GCD 1: plain sample counts
		} >"$b/profiles/run.$r.folded"
		r=$((r + 1))
	done
	c=$((c + 1))
done
expect_exit 0 pd ingest "$T"/b*

expect_exit 1 pd trend --scenario syn -f json
cp "$T/out" "$T/t.json"
if python3 - "$T/t.json" "$(sha 6)" "$(sha 5)" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert [c["runs"] for c in d["commits"]] == [3] * 10
assert len(d["alerts"]) == 1, d["alerts"]
a = d["alerts"][0]
assert a["first_bad"] == sys.argv[2] and a["last_good"] == sys.argv[3], a
# total: 3801 -> 4101 samples (the jitter cancels within a commit)
assert abs(a["total_change_pct"] - 100 * 300 / 3801) < 0.2, a
assert a["functions"][0]["name"] == "parse", a["functions"]
assert abs(a["functions"][0]["change_pct"] - 30) < 0.3, a["functions"]
names = [s["name"] for s in d["series"]]
assert names[0] == "total" and names[1] == "read", names
parse = d["series"][names.index("parse")]
assert parse["change_points"][0]["sha"] == sys.argv[2]
assert parse["change_points"][0]["p"] <= 0.001
# the means per commit are the runs' means, counted by hand
assert [round(p["mean"]) for p in parse["points"]] == [1000] * 5 + [1300] * 5
PY
then ok; else not_ok "synthetic trend"; cat "$T/t.json" >&2; fi
# Each series says the smallest step its commits show (MDE,
# docs/statistics.md "What a window can show"): the total's and read's
# commit means are exact (the jitter cancels), no spread to tell it by;
# the others', beyond their runs' levels, spread by less than 0.01 %.
if python3 -c 'import json, sys; s = {x["name"]: x["mde_pct"] for x in json.load(open(sys.argv[1]))["series"]}; assert s["total"] is None and s["read"] is None and all(v is None or 0 < v < 0.01 for v in s.values()), s' "$T/t.json"; then ok; else not_ok "mde_pct per series"; fi
expect_exit 1 pd trend --scenario syn
expect_grep "^series  *first  *last  *change  *thresh  *MDE  change points$" "$T/out"
expect_grep "MDE: the smallest step these commits show at --p 0.001 half the time" "$T/out"

expect_exit 1 pd trend --scenario syn --last 7 --top 2
expect_grep "^ALERT syn/warm: total +7.9 % at 06aaaaaaaa, from parse +30.0 %" "$T/out"
# 4 commits of 3 runs: 12 values, and 2 / C(12, 6) = 0.0022 > 0.001, so no
# change point could be found whatever happened; it says so, not "steady".
expect_exit 0 pd trend --scenario syn --since 2026-04-07
expect_grep "cannot detect change points with 4 commits and 12 runs in all: with --p 0.001 the permutation test needs at least 14 runs" "$T/out"
expect_no_grep "is steady" "$T/out"
expect_exit 0 pd trend --scenario syn --since 2026-04-07 -f md
expect_grep "cannot detect change points" "$T/out"
expect_exit 0 pd trend --scenario syn --last 3
expect_exit 1 pd trend --scenario syn -f md
expect_grep "^| <code>=cmd&#124;&#39; /C calc&#39;&#33;A0</code> |" "$T/out"
expect_exit 1 pd trend --scenario syn -f html -o "$T/t.html"
expect_no_grep "=cmd|' /C" "$T/t.html"
expect_grep "=cmd|&#39; /C calc&#39;!A0" "$T/t.html"
# chart axes: round ticks in plain decimals (1, 2, 2.5 or 5 times a power
# of ten apart), and the last commit's label inside the chart
if python3 - "$T/t.html" <<'PY'
import math, re, sys
html = open(sys.argv[1]).read()
for svg in re.findall(r"<svg.*?</svg>", html, re.S):
    ticks = [t for x, t in re.findall(r'<text x="([\d.]+)" y="[\d.]+" text-anchor="end">([^<]*)</text>', svg) if float(x) < 100]
    assert len(ticks) >= 2 and not any("e" in t for t in ticks), ticks
    v = [float(t) for t in ticks]
    step = v[1] - v[0]
    m = step / 10 ** math.floor(math.log10(step))
    assert any(abs(m - k) < 1e-6 for k in (1, 2, 2.5, 5, 10)), (ticks, m)
    assert all(abs((b - a) - step) < 1e-9 * max(1, abs(b)) for a, b in zip(v, v[1:])), ticks
    last = re.findall(r'<text x="([\d.]+)" y="[\d.]+" text-anchor="(end|middle)">[0-9a-f]{7}</text>', svg)[-1]
    assert last[1] == "end", last
PY
then ok; else not_ok "trend chart axes"; fi
expect_exit 1 pd trend --scenario syn -f xlsx -o "$T/t.xlsx"
if command -v xlsx2csv >/dev/null; then
	xlsx2csv -s 2 "$T/t.xlsx" >"$T/x.csv" && ok || not_ok "xlsx2csv"
	expect_grep "^06aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa,2026-04-06T00:00:00Z,3,4101," "$T/x.csv"
	if unzip -p "$T/t.xlsx" 'xl/worksheets/*.xml' | grep -q '<f>'; then
		not_ok "a formula in the workbook"; else ok; fi
	# the charts' labels are short shas, and the change point (commit 6)
	# is a red point of the total's line
	if python3 - "$T/t.xlsx" "$T/x.csv" <<'PY'
import csv, re, sys, zipfile
rows = list(csv.DictReader(open(sys.argv[2])))
assert [r["label"] for r in rows][:2] == ["01aaaaaaaa", "02aaaaaaaa"], rows[0]
z = zipfile.ZipFile(sys.argv[1])
chart = z.read("xl/charts/chart1.xml").decode()
pts = re.findall(r"<c:dPt><c:idx val=\"(\d+)\"/>(.*?)</c:dPt>", chart, re.S)
red = [int(i) for i, body in pts if "C00000" in body]
assert red == [5], red
assert "Series!$" in chart and "<c:cat>" in chart
PY
	then ok; else not_ok "trend xlsx: labels or change points"; fi
fi
expect_exit 1 pd trend --scenario syn --alert-after "$(sha 5)"
expect_exit 0 pd trend --scenario syn --alert-after 06aaaa
expect_exit 1 pd trend --scenario syn --state "$T/seen"
expect_exit 0 pd trend --scenario syn --state "$T/seen"
expect_lines 1 "$T/seen"

expect_exit 0 pd culprit --scenario syn
expect_grep "^first bad: $(sha 6)" "$T/out"
expect_grep "^git bisect start $(sha 6) $(sha 5)" "$T/out"
expect_exit 1 pd culprit --scenario syn --function '^read$'
expect_grep "no change point" "$T/out"

# check: stored against stored, and a bundle against a stored commit
expect_exit 1 pd check "db:$(sha 5):syn" "db:$(sha 6):syn"
expect_exit 0 pd check "db:$(sha 2):syn" "db:$(sha 4):syn" --function '^read' --threshold 10
expect_exit 0 pd check "db:07aa:syn:warm" "$T/b9" --function parse
expect_exit 1 pd check "$T/b1" "$T/b7" --function parse
expect_exit 0 pd check "$T/b1" "$T/b7" --function '^read' --threshold 10
expect_exit 125 pd check "$T/b1" "$T/b7" --function nosuchfunction

# the nightly script: reports written, a new alert once, then quiet
expect_exit 1 env PERFDIFF="$PERFDIFF" "$PD_ROOT/scripts/nightly.sh" --db "$PERFDIFF_DB" \
	--scenario syn --out "$T/night" "$T/b1" "$T/b2"
for f in md html json xlsx; do
	[ -s "$T/night/trend-syn-warm-folded.$f" ] && ok ||
		not_ok "nightly wrote trend-syn-warm-folded.$f"
done
expect_grep "new change point" "$T/out"
expect_exit 0 env PERFDIFF="$PERFDIFF" "$PD_ROOT/scripts/nightly.sh" --db "$PERFDIFF_DB" \
	--scenario syn --out "$T/night" --last 9 --site "$T/night/site" \
	--commit-url 'https://git.example/c/{sha}'
[ -s "$T/night/site/index.html" ] && [ -s "$T/night/site/alerts.html" ] && ok ||
	not_ok "nightly --site made no site"
expect_grep "git.example/c/" "$T/night/site/s/syn--warm--folded.html"
expect_exit 2 env PERFDIFF="$PERFDIFF" "$PD_ROOT/scripts/nightly.sh" --db "$PERFDIFF_DB" \
	--scenario nope --out "$T/night"
expect_grep "no scenario 'nope' (the history has syn)" "$T/err"

# errors: one line, exit 2 (128 for check, which must stop a bisect)
expect_exit 2 pd trend
expect_grep "scenario is required" "$T/err"
expect_exit 2 pd trend --scenario nope
expect_grep "no scenario 'nope' (the history has syn)" "$T/err"
# --commit-url links every commit of the Markdown and the HTML; only an
# http(s) address with {sha} is taken (no javascript: in a shared report)
expect_exit 1 pd trend --scenario syn -f md --commit-url 'https://example.test/r/commit/{sha}'
expect_grep "last good \\[<code>05aaaaaaaa</code>\\](https://example.test/r/commit/05$tail), first bad \\[<code>06aaaaaaaa</code>\\](https://example.test/r/commit/06$tail)" "$T/out"
expect_exit 1 pd trend --scenario syn -f html -o "$T/l.html" --commit-url 'https://example.test/r/commit/{sha}?x=1&y=(2)'
expect_grep "<a href=\"https://example.test/r/commit/06$tail?x=1&amp;y=%282%29\">06aaaaaaaa</a>" "$T/l.html"
expect_exit 2 pd trend --scenario syn -f html --commit-url 'javascript:alert(1)//{sha}'
expect_grep "want an http(s) address with {sha}" "$T/err"
expect_exit 2 pd trend --scenario syn --function '(' 
# a pattern that matches no stored function is an error (it used to let
# every function through, as if there were no pattern)
expect_exit 2 pd trend --scenario syn --function nosuchfunction
expect_grep "no stored function's name or \"name \[module\]\" matches --function" "$T/err"
expect_exit 2 pd culprit --scenario syn --function nosuchfunction
expect_exit 1 pd trend --scenario syn --function '^read$' -f json
if python3 -c 'import json, sys; n = [s["name"] for s in json.load(open(sys.argv[1]))["series"]]; assert n == ["total", "read"], n' "$T/out"; then ok; else not_ok "trend --function picks the matching series"; fi
expect_exit 2 pd trend --scenario syn -f pdf
expect_exit 2 pd trend --scenario syn -f xlsx
expect_exit 2 pd trend --scenario syn --alert-after deadbeef
expect_grep "not among the series" "$T/err"
expect_exit 2 pd trend --scenario syn --db "$T/none.db"
expect_grep "no such database" "$T/err"
expect_exit 2 pd culprit --scenario syn --repo "$T"
expect_exit 128 pd check "db:$(sha 9)" "$T/b9"
expect_grep "want db:REV:SCENARIO" "$T/err"
expect_exit 128 pd check "db:ffff:syn" "$T/b9"
expect_exit 128 pd check "$T/b1" "$T/nothing"
expect_exit 2 pd diff "$T/b1" "$T/b2" --function parse
for f in "$T/err"; do
	[ "$(wc -l <"$f")" -le 1 ] && ok || not_ok "one-line error"
done

# An improvement (parse 1300 -> 1000 at the sixth commit) is shown as one,
# does not fail the nightly job, and is no culprit unless asked.
c=1
while [ "$c" -le 10 ]; do
	b=$T/i$c
	mkdir -p "$b/profiles"
	printf '{"git_sha": "%02d%s", "scenario": "imp", "cache": "warm", "commit_date": "2026-05-%02dT00:00:00Z"}\n' \
		"$c" "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb" "$c" >"$b/build_meta.json"
	r=1
	while [ "$r" -le 3 ]; do
		j=$(( (r - 2) * (1 + c % 3) ))
		p=1300; [ "$c" -ge 6 ] && p=1000
		printf 'main;parse %d\nmain;read %d\nmain;idle 1\n' $((p + j)) $((2000 - j)) >"$b/profiles/run.$r.folded"
		r=$((r + 1))
	done
	c=$((c + 1))
done
expect_exit 0 pd ingest "$T"/i*
expect_exit 0 pd trend --scenario imp
expect_grep "^IMPROVEMENT imp/warm: total -9.1 % at 06bbbbbbbb, from parse -23.1 %" "$T/out"
expect_no_grep "^ALERT" "$T/out"
expect_exit 0 pd trend --scenario imp -f json
if python3 - "$T/out" <<'PY'; then ok; else not_ok "improvement in JSON"; fi
import json, sys
al = json.load(open(sys.argv[1]))["alerts"]
assert len(al) == 1 and al[0]["improvement"] is True, al
PY
expect_exit 0 pd trend --scenario imp -f md
expect_grep "$(printf '\360\237\224\265') improvement" "$T/out"
expect_no_grep ":[a-z_]*circle:" "$T/out"
expect_exit 1 pd culprit --scenario imp
expect_exit 0 pd culprit --scenario imp --improvements
# an improvement has no bad commit: the last one before it and the first
expect_grep "^last before: 05" "$T/out"
expect_grep "^first improved: 06bbbbbbbb" "$T/out"
expect_no_grep "first bad\|last good" "$T/out"
expect_exit 0 pd trend --scenario imp
expect_grep "last before [0-9a-f]*, first improved 06bbbbbbbb" "$T/out"
# A function name with bytes that are no UTF-8 and a terminal escape: the
# JSON stays UTF-8 (it was written raw, and no JSON reader could open it),
# the other outputs show neither the raw byte nor the escape.
history_db u8
for c in 1 2 3 4; do
	b=$T/u$c
	mkdir -p "$b/profiles"
	printf '{"git_sha": "%02d%s", "scenario": "u8", "cache": "warm", "commit_date": "2026-05-%02dT00:00:00Z"}\n' \
		"$c" "$tail" "$c" >"$b/build_meta.json"
	printf 'main;bad\377na\033[2Jme 500\nmain;ok 1000\n' >"$b/profiles/run.1.folded"
done
expect_exit 0 pd ingest "$T"/u1 "$T"/u2 "$T"/u3 "$T"/u4
expect_exit 0 pd trend --scenario u8 -f json
if python3 - "$T/out" <<'PY'; then ok; else not_ok "trend JSON with invalid UTF-8 in a name"; fi
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
names = [s["name"] for s in d["series"]]
assert "bad\ufffdna\x1b[2Jme" in names, names
PY
for f in text md html; do
	expect_exit 0 pd trend --scenario u8 -f $f
	if LC_ALL=C grep -q "$(printf '\377')" "$T/out" ||
		LC_ALL=C grep -q "$(printf '\033')\\[2J" "$T/out"; then
		not_ok "trend -f $f passes a raw byte or escape"
	else
		ok
	fi
done

# The newest commit: a step that has not held for 3 commits yet is not a
# change point; against the spread of the 10 commits before it (nights
# of +-5 samples in 1000) it is watched, said apart, and exits 0.
tw=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
c=1
while [ "$c" -le 11 ]; do
	b=$T/w$c
	mkdir -p "$b/profiles"
	printf '{"git_sha": "%02d%s", "scenario": "nw", "cache": "warm", "commit_date": "2026-05-%02dT00:00:00Z"}\n' \
		"$c" "$tw" "$c" >"$b/build_meta.json"
	n=$(( (c * 37) % 11 - 5 ))
	p=$((1000 + n))
	[ "$c" -eq 11 ] && p=1400
	for r in 1 2 3; do
		printf 'main;parse %d\nmain;read %d\n' "$p" "$((2000 + n))" >"$b/profiles/run.$r.folded"
	done
	c=$((c + 1))
done
expect_exit 0 pd ingest "$T"/w*
expect_exit 0 pd trend --scenario nw
expect_grep "^no change points: nw/warm is steady but for its newest commits" "$T/out"
expect_grep "^WATCH parse +39.9 % from 11bbbbbbbb (1 of 3 commits, p = [0-9.e-]*): not yet a change point" "$T/out"
expect_no_grep "^ALERT" "$T/out"
expect_exit 0 pd trend --scenario nw -f json
if python3 - "$T/out" "11$tw" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["alerts"] == [], d["alerts"]
w = {x["series"]: x for x in d["watch"]}
p = w["parse"]
assert p["first_changed"] == sys.argv[2] and p["index"] == 10, p
assert p["commits"] == 1 and p["needs"] == 3 and p["p"] <= 0.001, p
# 1400 against the ten commits' mean of 1000 + (37 c mod 11) - 5
mean = sum(1000 + (c * 37) % 11 - 5 for c in range(1, 11)) / 10
assert abs(p["change_pct"] - 100 * (1400 / mean - 1)) < 1e-6, (p, mean)
PY
then ok; else not_ok "the newest commit watched"; fi
expect_exit 0 pd trend --scenario nw -f md
expect_grep "^- watch: parse +39.9 % from" "$T/out"
expect_exit 0 pd trend --scenario nw -f html
expect_grep "<p class=\"note\">watch: parse +39.9 % from" "$T/out"
expect_exit 0 pd trend --scenario nw -f xlsx -o "$T/w.xlsx"
python3 -c 'import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
s = "".join(z.read(n).decode() for n in z.namelist() if n.endswith(".xml"))
assert "WATCH parse +39.9 % from 11bbbbbbbb (1 of 3 commits" in s' "$T/w.xlsx" &&
	ok || not_ok "the watched step is not in the XLSX summary"
finish
