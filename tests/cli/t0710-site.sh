#!/bin/sh
# perfdiff site: the history as a static site. Two series over ten
# commits (parse +30 % from commit 6 in one of them), names that need
# escaping and a scenario that is no file name; then: every relative link
# resolves, nothing is fetched from elsewhere, the alert and the points
# open existing comparison pages, a second build remakes nothing, a new
# commit makes its page and retires the one that left the window, and in
# Chromium the pages work from file://.
. "$(dirname "$0")/lib.sh"
export PERFDIFF_DB="$T/h.db"
tail=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
mk() { # mk SCENARIO COMMIT
	b=$T/b-$(printf '%s' "$1" | tr -c 'a-z0-9' _)-$2
	mkdir -p "$b/profiles"
	printf '{"git_sha": "%02d%s", "scenario": "%s", "cache": "warm", "commit_date": "2026-04-%02dT00:00:00Z"}\n' \
		"$2" "$tail" "$1" "$2" >"$b/build_meta.json"
	for r in 1 2 3; do
		j=$(( (r - 2) * (1 + $2 % 3) ))
		p=1000; [ "$2" -ge 6 ] && [ "$1" = syn ] && p=1300
		{
			echo "main;parse $((p + j))"
			echo "main;read $((2000 - j))"
			echo "main;<b>x</b> $((500 + j))"
		} >"$b/profiles/run.$r.folded"
	done
	echo "$b"
}
c=1
while [ $c -le 10 ]; do
	mk syn $c >/dev/null
	mk 'a/b <c>' $c >/dev/null
	c=$((c + 1))
done
expect_exit 0 pd ingest "$T"/b-*
S=$T/site
expect_exit 0 pd site "$S" --pages 4 --commit-url 'https://git.example/r/commit/{sha}'
expect_grep "2 series; 9 comparison pages made, 0 kept" "$T/out"

check_site() { # every link resolves, no outside fetch, pages as expected
	python3 - "$S" "$@" <<'PY'
import html.parser, os, re, sys
root = sys.argv[1]
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.refs = []; self.fetch = []
    def handle_starttag(self, tag, attrs):
        for k, v in attrs:
            if k == "href":
                self.refs.append(v)
            if k == "src" or (tag == "link" and k == "href"):
                self.fetch.append(v)
pages = 0
for d, _, files in os.walk(root):
    for f in files:
        if not f.endswith(".html"):
            continue
        pages += 1
        path = os.path.join(d, f)
        text = open(path, encoding="utf-8").read()
        p = P(); p.feed(text)
        assert not p.fetch, (path, p.fetch)
        assert not re.search(r"url\(\s*['\"]?https?:", text), path
        for r in p.refs:
            if r.startswith("https://git.example/r/commit/"):
                continue
            assert not re.match(r"[a-z]+:", r), (path, r)
            target = os.path.normpath(os.path.join(d, r.split("#")[0]))
            assert r.startswith("#") or os.path.isfile(target), (path, r)
        # the name with markup is shown, never interpreted
        assert "<b>x</b>" not in text, path
print(pages)
PY
}
n=$(check_site) && ok || not_ok "site links: $n"
[ "$n" = 13 ] && ok || not_ok "13 pages (index, alerts, 2 trends, 9 comparisons), found $n"
syn=$S/s/syn--warm--folded.html
odd=$S/s/a_2fb_20_3cc_3e--warm--folded.html
[ -f "$odd" ] && ok || not_ok "the scenario 'a/b <c>' has no page of a safe name: $(ls "$S/s")"
expect_grep 'a/b &lt;c&gt;' "$S/index.html"
# the alert: on the index, on the alerts page with its comparison, and
# the first bad commit's point opens that comparison
expect_grep 'class="regressed">syn/warm: total +8.6 % at 06aaaaaaaa, from parse +30.0 %' "$S/index.html"
expect_grep 'href="c/syn--warm--folded/06a*\.html">the comparison' "$S/alerts.html"
expect_grep '<a href="../c/syn--warm--folded/06a*\.html"><circle class="pt page"' "$syn"
expect_grep 'href="https://git.example/r/commit/06a*"' "$syn"
# the comparison page is perfdiff compare's report of 05 against 06
cmp6=$S/c/syn--warm--folded/06$tail.html
expect_grep '05aaaaaaaaaa' "$cmp6"
expect_grep 'href="../../s/syn--warm--folded.html">trend' "$cmp6"
expect_grep 'parse' "$cmp6"
# with the flame graph of each side's mean run, from the stored trees:
# parse 1000 -> 1300 samples (three runs a side, the jitter cancels)
expect_grep '"flame":{"names":\[' "$cmp6"
expect_grep ',1000,1300,' "$cmp6"

# Again: nothing remade, the pages untouched.
ls -l --time-style=full-iso "$S"/c/*/* >"$T/before"
sleep 1
expect_exit 0 pd site "$S" --pages 4
expect_grep "9 comparison pages made\|0 comparison pages made, 9 kept" "$T/out"
expect_grep "0 comparison pages made, 9 kept" "$T/out"
ls -l --time-style=full-iso "$S"/c/*/* >"$T/after"
cmp -s "$T/before" "$T/after" && ok || not_ok "pages rewritten: $(diff "$T/before" "$T/after" | head -4)"
# A new commit of syn: its page is made; commit 7 leaves the window of
# four and its page goes; 06 stays (an alert's).
expect_exit 0 pd ingest "$(mk syn 11)"
expect_exit 0 pd site "$S" --pages 4
expect_grep "1 comparison pages made, 8 kept" "$T/out"
[ -f "$S/c/syn--warm--folded/11$tail.html" ] && ok || not_ok "no page for the new commit"
[ ! -e "$S/c/syn--warm--folded/07$tail.html" ] && ok || not_ok "the page of 07 stayed"
[ -f "$cmp6" ] && ok || not_ok "the alert's page went"
n=$(check_site) && ok || not_ok "site links after the update: $n"
# --rebuild makes every page again
expect_exit 0 pd site "$S" --pages 4 --rebuild
expect_grep "9 comparison pages made, 0 kept" "$T/out"

# Errors: one line, exit 2.
expect_exit 2 pd site "$T/x" --db "$T/none.db"
expect_lines 1 "$T/err"
expect_exit 2 pd site "$T/x" --commit-url 'javascript:alert(1)/{sha}'
expect_lines 1 "$T/err"
expect_exit 2 pd site
expect_lines 1 "$T/err"

if [ -z "$CHROME" ]; then
	echo "chromium not installed: browser checks skipped"
	finish
	exit $?
fi
browse() { chrome_dom "file://$1"; }
browse "$S/index.html" >"$T/index.dom"
grep -q 'syn--warm--folded.html' "$T/index.dom" && ok || not_ok "index in Chromium: $(head -c 300 "$T/index.dom")"
# the comparison page's script runs from file:// two folders down
browse "$cmp6#selftest" >"$T/cmp.dom"
grep -q 'SELFTEST {' "$T/cmp.dom" && ok || not_ok "comparison page in Chromium: no self-test result"
if grep -E 'CONSOLE|Uncaught' "$T/console" | grep -Eiq 'error|uncaught'; then
	not_ok "console errors: $(grep -E 'CONSOLE|Uncaught' "$T/console" | head -3)"
else ok; fi
finish
