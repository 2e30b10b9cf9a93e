#!/bin/sh
# perfdiff site with names no file system takes as they are: a scenario
# of 5000 characters, and another that differs from it only at its end.
# Every series gets its own pages under bounded names (at most 255 bytes
# a file name, the limit of Linux and macOS file systems), a plain name
# keeps its plain page, and the pages still show each name whole,
# escaped.
. "$(dirname "$0")/lib.sh"
export PERFDIFF_DB="$T/h.db"
tail=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
long=$(python3 -c 'print("s" * 4990 + "<&>" + "é" * 3)')
long2=$(python3 -c 'print("s" * 4990 + "<&>" + "é" * 2 + "e")')
n=0
mk() { # mk SCENARIO CACHE COMMIT
	n=$((n + 1))
	b=$T/b$n
	mkdir -p "$b/profiles"
	python3 - "$b/build_meta.json" "$3$tail" "$1" "$2" "$3" <<'PY'
import json, sys
json.dump({"git_sha": sys.argv[2], "scenario": sys.argv[3], "cache": sys.argv[4],
           "commit_date": "2026-04-%sT00:00:00Z" % sys.argv[5]}, open(sys.argv[1], "w"))
PY
	for r in 1 2; do
		printf 'main;parse %d\nmain;read 2000\n' $((1000 + r)) >"$b/profiles/run.$r.folded"
	done
}
for c in 01 02 03; do
	mk syn warm $c
	mk "$long" warm $c
	mk "$long2" cold $c
done
expect_exit 0 pd ingest "$T"/b*
S=$T/site
expect_exit 0 pd site "$S" --pages 4
expect_grep "3 series; 6 comparison pages made" "$T/out"
# three trend pages, one a series; the plain one under its plain name
[ "$(ls "$S/s" | wc -l)" -eq 3 ] && ok || not_ok "trend pages: $(ls "$S/s")"
[ -f "$S/s/syn--warm--folded.html" ] && ok || not_ok "syn's page renamed"
[ "$(ls "$S/c" | wc -l)" -eq 3 ] && ok || not_ok "comparison folders: $(ls "$S/c")"
long_names=$(find "$S" | awk -F/ 'length($NF) > 255' | wc -l)
[ "$long_names" -eq 0 ] && ok || not_ok "$long_names names over 255 bytes"
# the two long ones have a page each, showing its own name
grep -l "s&lt;&amp;&gt;ééé" "$S"/s/*.html >/dev/null && ok || not_ok "the long name's page"
grep -l "s&lt;&amp;&gt;éée[^é]" "$S"/s/*.html >/dev/null && ok || not_ok "the other long name's page"
# the long name whole and escaped, in the index and on its own page
expect_grep "$(python3 -c 'print("s" * 4990)')&lt;&amp;&gt;ééé" "$S/index.html"
# every link of the index resolves
python3 - "$S" <<'PY' && ok || not_ok "a link of the index leads nowhere"
import os, re, sys
root = sys.argv[1]
html = open(os.path.join(root, "index.html"), encoding="utf-8").read()
links = re.findall(r'href="([^"#:]+)"', html)
assert links
for l in links:
    assert os.path.exists(os.path.join(root, l)), l
PY
# a second build makes nothing again
expect_exit 0 pd site "$S" --pages 4
expect_grep "0 comparison pages made, 6 kept" "$T/out"
finish
