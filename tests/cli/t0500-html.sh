#!/bin/sh
# The HTML report: self-contained, escaped, and working in a real browser
# (headless Chromium: sorting by a click, a drawn flame graph, no console
# errors, a screenshot). Skips only the browser part without chromium.
. "$(dirname "$0")/lib.sh"
D=$PD_ROOT/fixtures/demo
expect_exit 1 pd -f html -o "$T/demo.html" "$D/base.perf.txt.gz" "$D/cand.perf.txt.gz"
# Nothing is fetched: no external scripts, styles, images or imports.
if grep -Eq '<(script|link|img|iframe)[^>]+(src|href)=|@import|url\(' "$T/demo.html"; then
	not_ok "the report refers to something outside itself"
else ok; fi
expect_grep "parse_record" "$T/demo.html"
expect_grep "<h1>perfdiff: regressed</h1>" "$T/demo.html"
# Several runs a side keep the picture: the flame graph and "where the
# time went" of each side's mean run (two runs of one file: the same
# numbers as one), and every run in the provenance. A flame node is
# [parent node, name, baseline, candidate, row]; names and nodes are
# numbered as first seen, and the demo's first sample is 13 frames of a
# page fault in the loader, so __libc_start_call_main > main >
# parse_record are names 14-16 and main is node 16. parse_record's own
# time there, counted with zcat and awk on the text (every period is
# 500250 ns): 8699 samples, 4351674750 ns, and 11708, 5856927000 ns.
expect_exit 1 pd -f html -o "$T/runs.html" -b "$D/base.perf.txt.gz" -b "$D/base.perf.txt.gz" \
	-c "$D/cand.perf.txt.gz" -c "$D/cand.perf.txt.gz"
expect_grep '"flame":{"names":\[' "$T/runs.html"
expect_grep '\[16,16,4351674750,5856927000,0\]' "$T/runs.html"
expect_grep '"where":\[{' "$T/runs.html"
expect_grep "2 runs: .*base.perf.txt.gz, .*base.perf.txt.gz" "$T/runs.html"

# Hostile names: escaped in the text, and unable to end the data script.
printf 'main;</script><script>alert(1)</script> 100\nmain;a&b<i>"q"'"'"' 100\n' >"$T/a.folded"
printf 'main;</script><script>alert(1)</script> 300\nmain;a&b<i>"q"'"'"' 100\n' >"$T/b.folded"
expect_exit 1 pd --sample-weight 1 -f html -o "$T/evil.html" "$T/a.folded" "$T/b.folded"
expect_no_grep "<script>alert" "$T/evil.html"
expect_no_grep "<i>\"q\"" "$T/evil.html"
n=$(grep -c "</script>" "$T/evil.html")
[ "$n" -eq 2 ] && ok || not_ok "$n </script> tags: the data ended a script element"

# 50 000 functions: the file stays reasonable and the table renders lazily.
python3 - "$T" <<'PY'
import sys
t = sys.argv[1]
with open(t + "/big-a.folded", "w") as a, open(t + "/big-b.folded", "w") as b:
    for i in range(50000):
        a.write("main;mod%d;function_%d %d\n" % (i % 100, i, 100))
        b.write("main;mod%d;function_%d %d\n" % (i % 100, i, 100 if i % 50 else 180))
PY
expect_exit 1 pd --sample-weight 1 -f html -o "$T/big.html" "$T/big-a.folded" "$T/big-b.folded"
size=$(wc -c <"$T/big.html")
[ "$size" -lt 20000000 ] && ok || not_ok "50 000 functions make $size bytes"

if [ -z "$CHROME" ]; then
	echo "chromium not installed: browser checks skipped"
	finish
	exit $?
fi
browse() { chrome_dom "file://$1#selftest"; }
for f in demo big; do
	browse "$T/$f.html" >"$T/$f.dom"
	if python3 - "$T/$f.dom" "$f" <<'PY'
import json, re, sys
dom = open(sys.argv[1]).read()
m = re.search(r"SELFTEST (\{.*\})</pre>", dom)
assert m, "no self-test result in the DOM"
r = json.loads(m.group(1))
assert r["sorted"] and r["ascending"], r
assert r["rects"] > 3, r
assert r["rows"] == (200 if sys.argv[2] == "big" else r["rows"]), r
if sys.argv[2] == "demo":
    assert r["where"] >= 1, r
    # a caller of the regression is judged by its total (its self time
    # read "same" beside a +40 % callee)
    assert all(v in ("callers:total verdict", "callees:self verdict")
               for v in r["where_verdicts"]), r["where_verdicts"]
    assert "callers:total verdict" in r["where_verdicts"], r["where_verdicts"]
# filtered to one name: the counter still counts every function
assert re.match(r"\d+ of %d functions \(\d+ match\)$" % r["total"], r["count"]), r
assert r["total"] > 1, r
PY
	then ok; else not_ok "$f.html in Chromium: $(grep -o 'SELFTEST.*' "$T/$f.dom" | head -c 300)"; fi
	if grep -E 'CONSOLE|Uncaught' "$T/console" | grep -Eiq 'error|uncaught'; then
		not_ok "$f.html: console errors: $(grep -E 'CONSOLE|Uncaught' "$T/console" | head -3)"
	else ok; fi
done
# The inverted flame graph and the callers and callees of the top
# regression, clicked in the browser, against perfdiff peek's numbers of
# the same pair (C, not the page's script) and against a count by hand:
# f is called from a, b and main, calls g, h and itself (main;f;f;g).
printf 'main;a;f 100\nmain;a;f;g 50\nmain;b;f;h 30\nmain;f;f;g 20\nmain;b;x 40\n' >"$T/bf-a.folded"
printf 'main;a;f 300\nmain;a;f;g 50\nmain;b;f;h 60\nmain;f;f;g 20\nmain;b;x 40\n' >"$T/bf-b.folded"
pd --sample-weight 1 -f html -o "$T/bf.html" "$T/bf-a.folded" "$T/bf-b.folded" 2>/dev/null
pd peek --sample-weight 1 '^f$' "$T/bf-a.folded" "$T/bf-b.folded" -f json >"$T/bf-peek.json" 2>/dev/null
browse "$T/bf.html" >"$T/bf.dom"
if python3 - "$T/bf.dom" "$T/bf-peek.json" <<'PY'
import json, re, sys
r = json.loads(re.search(r"SELFTEST (\{.*\})</pre>", open(sys.argv[1]).read()).group(1))
# inverted: the top frames are the frames with own time, same totals
assert r["inv_top"] == r["own"] == ["f", "g", "h", "x"], r
assert r["inv_total"] == r["flat_total"] == [240, 470], r
assert r["butterfly_of"] == "f", r
# driven from the keyboard and a click on a frame
assert r["key_inverted"] is True and r["zoomed"] and r["unzoomed"], r
assert r["key_row"] is True, r
js = {k: sorted((n, b, c) for n, b, c in r["butterfly"][k]) for k in ("callers", "callees")}
# by hand: callers a 150 -> 350, b 30 -> 60, main (the outer f) 20 -> 20;
# callees g 50 + 20, h 30 -> 60, f's own time 100 -> 300, f -> f no edge
assert js["callers"] == [("a", 150, 350), ("b", 30, 60), ("main", 20, 20)], js
assert js["callees"] == [("(self)", 100, 300), ("g", 70, 70), ("h", 30, 60)], js
# the sandwich: both halves rooted at f, as wide as its outermost calls
# (a;f 150 -> 350, b;f 30 -> 60, main;f 20 -> 20), callers under it as
# above; under f in the callees' half: f itself (main;f;f), g and h
up, down = r["sandwich"]
assert [x[:3] for x in up] == [["f", 200, 430]] == [x[:3] for x in down], r["sandwich"]
assert sorted(tuple(c) for c in up[0][3]) == js["callers"], up
assert down[0][3] == [["f", 20, 20], ["g", 50, 50], ["h", 30, 60]], down
assert r["sandwich_rects"] >= 8, r
pk = json.load(open(sys.argv[2]))["peek"][0]
def rows(k):
    return sorted(((x["function"] or "(%s)" % x["kind"]), x["baseline"], x["candidate"])
                  for x in pk[k])
assert rows("callers") == js["callers"], (rows("callers"), js["callers"])
assert rows("callees") == js["callees"], (rows("callees"), js["callees"])
PY
then ok; else not_ok "inverted view and callers/callees in Chromium: $(grep -o 'SELFTEST.*' "$T/bf.dom" | head -c 400)"; fi
# Screenshots, for a person to look at (PD_SHOTS keeps them).
shots=${PD_SHOTS:-$T}
with_timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-background-networking \
	--disable-component-update --disable-sync --no-first-run --user-data-dir="$T/ud2" \
	--hide-scrollbars --window-size=1400,1500 --virtual-time-budget=5000 \
	--screenshot="$shots/report-html.png" "file://$T/demo.html" >/dev/null 2>&1
[ -s "$shots/report-html.png" ] && ok || not_ok "no screenshot"
# Tens of warnings (a bundle's libraries without symbols, run by run)
# would push the flame graph below the fold: past the first five they
# fold into one <details>, every one still in the page. Four evented
# speedscope runs a side: the assumed rate is said for each of the 8.
python3 - "$T" <<'PY'
import json, sys
ev = []
for i in range(10):
    ev += [{"type": "O", "frame": 0, "at": 3 * i}, {"type": "O", "frame": 1, "at": 3 * i},
           {"type": "C", "frame": 1, "at": 3 * i + 2}, {"type": "C", "frame": 0, "at": 3 * i + 3}]
for k in range(4):
    json.dump({"$schema": "https://www.speedscope.app/file-format-schema.json",
               "shared": {"frames": [{"name": "main"}, {"name": "work"}]},
               "profiles": [{"type": "evented", "name": "p", "unit": "milliseconds",
                             "startValue": 0, "endValue": 30, "events": ev}]},
              open("%s/ev%d.json" % (sys.argv[1], k), "w"))
PY
expect_exit 0 pd -f html -o "$T/w.html" -b "$T/ev0.json" -b "$T/ev1.json" -b "$T/ev2.json" -b "$T/ev3.json" \
	-c "$T/ev0.json" -c "$T/ev1.json" -c "$T/ev2.json" -c "$T/ev3.json"
n=$(grep -c "says nothing of its sampling rate" "$T/w.html")
if [ "$n" -ge 7 ]; then ok; else not_ok "warnings in the page: $n"; fi
# every warning is a <li>, and the fold's own one
all=$(awk '/<ul class="warnings">/,/<\/section>/' "$T/w.html" | grep -c "^<li")
folded=$((all - 1 - 5))
expect_grep "<li class=\"more\"><details><summary>$folded more warnings</summary><ul>" "$T/w.html"
if awk '/<ul class="warnings">/,/<\/section>/' "$T/w.html" | sed -n '1,7p' | grep -q "<details>"; then ok; else
	not_ok "the fold is not after the fifth warning"
fi
finish
