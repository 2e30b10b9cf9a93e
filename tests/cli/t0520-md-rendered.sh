#!/bin/sh
# The Markdown reports as GitHub shows them: rendered by cmark-gfm (the
# renderer GitHub's is built on, tables extension), styled like a PR
# comment and laid out by Chromium at a comment column's width (the
# narrowest place they are read). No number wraps inside its cell (they
# once broke as "+84.2" / "%"), every table is a table, and the trend's
# alerts show emoji, not ":red_circle:" text. Skips without cmark-gfm;
# the layout part only without chromium.
. "$(dirname "$0")/lib.sh"
command -v cmark-gfm >/dev/null || { echo "cmark-gfm not installed: skipped"; exit 77; }
D=$PD_ROOT/fixtures/demo
pd -f md -o "$T/diff.md" "$D/base.perf.txt.gz" "$D/cand.perf.txt.gz" 2>/dev/null
# a trend with an alert: parse +30 % from the fourth of six commits
export PERFDIFF_DB="$T/h.db"
for c in 1 2 3 4 5 6; do
	b=$T/b$c
	mkdir -p "$b/profiles"
	printf '{"git_sha": "%02daaaaaaaaaa", "scenario": "s", "cache": "warm", "commit_date": "2026-04-%02dT00:00:00Z"}\n' \
		"$c" "$c" >"$b/build_meta.json"
	for r in 1 2 3; do
		p=1000; [ $c -ge 4 ] && p=1300
		printf 'main;parse %d\nmain;read %d\n' $((p + r)) $((2000 - r)) >"$b/profiles/run.$r.folded"
	done
done
pd ingest "$T"/b[1-6] >/dev/null 2>&1
pd trend --scenario s -f md -o "$T/trend.md" --p 0.05 >/dev/null 2>&1
for f in diff trend; do
	[ -s "$T/$f.md" ] || { not_ok "no $f.md"; continue; }
	{
		printf '<!DOCTYPE html><html><head><meta charset="utf-8"><style>'
		# GitHub's comment typography, and a column as narrow as a
		# review comment beside the diff
		printf 'body{width:700px;font:14px/1.5 -apple-system,"Segoe UI",Helvetica,Arial,sans-serif}'
		printf 'table{border-collapse:collapse;display:block;overflow:auto;max-width:100%%}'
		printf 'td,th{padding:6px 13px;border:1px solid #d0d7de}code{font-size:85%%}'
		printf '</style></head><body>\n'
		cmark-gfm -e table -e autolink -e strikethrough --unsafe "$T/$f.md"
		cat <<'JS'
<script>
// every table cell holding a number: on one line?
// and does no table scroll sideways?
var out = { cells: 0, wrapped: [], tables: document.querySelectorAll("table").length, wide: [] };
document.querySelectorAll("table").forEach(function (tb) {
  if (tb.scrollWidth > tb.clientWidth + 1) out.wide.push(tb.scrollWidth);
});
// (a cell may hold lines parted by <br>: each line must not wrap)
document.querySelectorAll("td").forEach(function (td) {
  Array.prototype.forEach.call(td.childNodes, function (node) {
    if (node.nodeType !== 3) return;
    var t = node.textContent.trim();
    if (!/^(MDE(\s|\u00a0))?[(+\-−]?[0-9][0-9.,…+\-]*\)?(\s|\u00a0)?(%|ms)?((\s|\u00a0)[(→·].*)?$|^[0-9.]+ \(|^[0-9.]+\u00a0\(/.test(t)) return;
    out.cells++;
    var range = document.createRange();
    range.selectNodeContents(node);
    var tops = {};
    Array.prototype.forEach.call(range.getClientRects(), function (r) { if (r.width > 0) tops[Math.round(r.top)] = 1; });
    if (Object.keys(tops).length > 1) out.wrapped.push(t);
  });
});
var pre = document.createElement("pre");
pre.textContent = "LAYOUT " + JSON.stringify(out);
document.body.appendChild(pre);
</script></body></html>
JS
	} >"$T/$f.html"
	# the renderer made tables of the pipe tables
	grep -q "<table>" "$T/$f.html" && ok || not_ok "$f.md: cmark-gfm made no table"
	expect_no_grep ":red_circle:\|:large_blue_circle:\|:warning:" "$T/$f.html"
done
expect_grep "$(printf '\360\237\224\264')" "$T/trend.html"

if [ -z "$CHROME" ]; then
	echo "chromium not installed: layout checks skipped"
	finish
	exit $?
fi
for f in diff trend; do
	chrome_dom "file://$T/$f.html" >"$T/$f.dom"
	if python3 - "$T/$f.dom" "$f" <<'PY'
import json, re, sys
r = json.loads(re.search(r"LAYOUT (\{.*\})</pre>", open(sys.argv[1]).read()).group(1))
assert r["tables"] >= 1, r
assert r["cells"] >= (20 if sys.argv[2] == "diff" else 1), r
assert not r["wrapped"], r["wrapped"]
assert sys.argv[2] != "diff" or not r["wide"], r["wide"]
PY
	then ok; else not_ok "$f.md laid out at 700 px: $(grep -o 'LAYOUT.*' "$T/$f.dom" | head -c 400)"; fi
done
finish
