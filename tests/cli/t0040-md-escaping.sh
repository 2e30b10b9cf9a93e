#!/bin/sh
# Markdown stays under 60 000 characters for huge profiles, and hostile
# names are escaped in Markdown and valid in JSON.
. "$(dirname "$0")/lib.sh"

python3 - "$T" <<'PY'
import sys
t = sys.argv[1]
with open(t + "/big-a.folded", "w") as a, open(t + "/big-b.folded", "w") as b:
    for i in range(20000):
        name = "namespace::module_%d::function_with_a_long_name_%d" % (i % 97, i)
        a.write("main;%s %d\n" % (name, 1000))
        b.write("main;%s %d\n" % (name, 1000 if i % 3 else 1500))
evil = ["=cmd|' /C calc'!A0", "a|b`c`<script>alert(1)</script>", "x*y_z~[link](http://e)",
        "bad\xff\xfeutf8", "+plus", "@at", "-minus", "semi;colon"]
with open(t + "/evil-a.folded", "w", encoding="utf-8", errors="surrogateescape") as a, \
     open(t + "/evil-b.folded", "w", encoding="utf-8", errors="surrogateescape") as b:
    for i, e in enumerate(evil):
        e = e.replace(";", ":")
        a.write("main;%s 100\n" % e.encode("latin-1").decode("utf-8", "surrogateescape"))
        b.write("main;%s %d\n" % (e.encode("latin-1").decode("utf-8", "surrogateescape"), 100 if i else 400))
PY

expect_exit 1 pd --sample-weight 1 --min-impact 0 -f md "$T/big-a.folded" "$T/big-b.folded"
n=$(wc -c <"$T/out")
[ "$n" -lt 60000 ] && ok || not_ok "markdown is $n bytes"
expect_grep "more rows left out" "$T/out"
expect_grep "Settings and provenance" "$T/out"
expect_grep "^\*\*perfdiff: regressed\*\* — <code>.*</code> +[0-9.]* % (self), total .*; 6667 functions regressed" "$T/out"
# Five columns, so that a pull request shows the table without scrolling
# sideways; a long name may wrap at its seams.
expect_grep "^| Function | Verdict | Δ (95 % CI) | Baseline → Candidate (samples) | q · MDE |$" "$T/out"
expect_grep "<code>namespace::<wbr>module&#95;[0-9]*::<wbr>function" "$T/out"

expect_exit 1 pd --sample-weight 1 -f md "$T/evil-a.folded" "$T/evil-b.folded"
expect_no_grep "<script>" "$T/out"
expect_grep "&#60;script&#62;" "$T/out"
# A raw pipe inside a table cell would break the row.
if grep '^| <code>' "$T/out" | awk -F'|' '{ if (NF != 7) bad = 1 } END { exit bad }'; then ok; else
	not_ok "a table row has the wrong number of cells"
fi
expect_exit 1 pd --sample-weight 1 -f json "$T/evil-a.folded" "$T/evil-b.folded"
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert any("\ufffd" in f["function"] for f in d["functions"])' "$T/out"; then ok; else
	not_ok "JSON with invalid UTF-8 names"
fi
# What a forge would turn into something else: a mention pings a
# stranger, a bare URL or www. becomes a link (or an image), a bidi
# override reverses what a reviewer reads. Broken, or made visible.
printf 'main;@octocat 100\nmain;see https://evil.example/x.png 50\nmain;www.evil.com 30\nmain;x\342\200\256gnp.exe 20\nmain;b\377c 20\n' >"$T/f-a.folded"
printf 'main;@octocat 300\nmain;see https://evil.example/x.png 150\nmain;www.evil.com 90\nmain;x\342\200\256gnp.exe 60\nmain;b\377c 60\n' >"$T/f-b.folded"
expect_exit 1 pd --sample-weight 1 -f md "$T/f-a.folded" "$T/f-b.folded"
if python3 - "$T/out" <<'PY'
import re, sys
md = open(sys.argv[1], "rb").read().decode("utf-8")
assert "@octocat" not in md and "&#64;<!-- -->octocat" in md, "mention"
assert "://" not in md and "https&#58;<!-- -->//evil" in md, "autolink"
assert "www.evil" not in md and "www<!-- -->.evil" in md, "www link"
assert "&#92;u202egnp.exe" in md, "bidi override"
assert "b\ufffdc" in md or "&#xfffd;" in md, "invalid UTF-8"
assert not re.search("[\u200b-\u200f\u202a-\u202e\u2066-\u2069]", md)
PY
then ok; else not_ok "markdown: mention, link, bidi or invalid UTF-8 got through"; fi
# A number in a table cell never wraps in a narrow GitHub column: the
# space before "%" and inside "+40 % (+19 … +63)" is a no-break space.
# (A function added in the candidate has no change to give, "n/a": its
# row holds no percentage; every "%" there is in the others.)
expect_exit 1 pd -f md "$PD_ROOT/fixtures/demo/base.perf.txt.gz" "$PD_ROOT/fixtures/demo/cand.perf.txt.gz"
if python3 - "$T/out" <<'PY'
import re, sys
md = open(sys.argv[1], encoding="utf-8").read()
rows = [l for l in md.splitlines() if l.startswith("| <code>")]
assert rows, "no table rows"
pct = 0
for r in rows:
    cells = [c.strip() for c in r.strip("|").split("|")]
    for c in cells[2:]:
        assert not re.search(r"\d %|\d \(", c), c
        assert not re.search(r"[^\u00a0]%", c), c
    pct += "\u00a0%" in r
assert pct >= len(rows) // 2, "few rows with a percentage: %d of %d" % (pct, len(rows))
PY
then ok; else not_ok "markdown: a number cell can wrap"; fi
# Long names may wrap at their seams, but never inside "://" (the
# escaping must see it whole), and a name cut at 200 characters says so
# even when the cut falls on a seam.
python3 - "$T" <<'PY'
import sys
long = "a" * 199 + ":" + "b" * 50
url = "see http://evil.example/" + "x" * 40
for side, n in (("la", 100), ("lb", 300)):
    open("%s/%s.folded" % (sys.argv[1], side), "w").write("main;%s %d\nmain;%s %d\n" % (long, n, url, n))
PY
expect_exit 1 pd --sample-weight 1 -f md "$T/la.folded" "$T/lb.folded"
expect_no_grep "://" "$T/out"
expect_grep "http&#58;<!-- -->//evil" "$T/out"
expect_grep "a:…</code>" "$T/out"
finish
