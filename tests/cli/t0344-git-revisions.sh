#!/bin/sh
# Revisions resolved by git with --repo (docs/cli.md, "compare"): compare,
# check's db:REV and --alert-after of trend and culprit take HEAD~1, a
# branch, a tag, a short sha and A...B (the merge base of A and B) as git
# rev-parse and git merge-base give them, also for a commit the history
# stored by a prefix; without --repo a name that is no stored sha prefix
# says it needs --repo; a revision git does not know is one line naming
# it. The history: ten commits on main of three folded runs each, parse
# stepping from 1000 to 1300 samples at the sixth (as in t0610), and a
# branch "feature" of two commits off the seventh.
. "$(dirname "$0")/lib.sh"
command -v git >/dev/null || { echo "git not installed: skipped"; exit 77; }
# Outside any repository, so that only --repo resolves names.
cd "$T" || exit 1
history_db g
R=$T/repo
mkdir "$R" && git -C "$R" init -q -b main
commit() { # commit DAY MESSAGE
	GIT_COMMITTER_DATE="2026-04-$1T12:00:00+00:00" GIT_AUTHOR_DATE="2026-04-$1T12:00:00+00:00" \
		git -C "$R" -c user.name=t -c user.email=t@e commit -q --allow-empty -m "$2"
}
for i in 01 02 03 04 05 06 07 08 09 10; do
	commit "$i" "c$i"
	[ "$i" = 02 ] && git -C "$R" tag v1.0
	[ "$i" = 07 ] && git -C "$R" branch feature
done
git -C "$R" checkout -q feature
commit 11 f1
commit 12 f2
git -C "$R" checkout -q main
git -C "$R" rev-list --reverse main >"$T/main.txt"
git -C "$R" rev-list --reverse main..feature >"$T/feature.txt"
c() { sed -n "${1}p" "$T/main.txt"; }
f() { sed -n "${1}p" "$T/feature.txt"; }
# bundle DIR SHA PARSE: three runs, noise that cancels within the commit
bundle() {
	mkdir -p "$1/profiles"
	[ -n "$2" ] && printf '{"git_sha": "%s", "scenario": "syn", "cache": "warm"}\n' "$2" >"$1/build_meta.json"
	for r in 1 2 3; do
		j=$(( (r - 2) * 3 ))
		printf 'main;parse %s\nmain;read %s\nmain;other %s\n' \
			$(($3 + j)) $((2000 - j)) $((500 + j)) >"$1/profiles/run.$r.folded"
	done
}
n=1
while [ $n -le 10 ]; do
	p=1000; [ $n -ge 6 ] && p=1300
	bundle "$T/b$n" "$(c $n)" $p
	n=$((n + 1))
done
bundle "$T/f2" "$(f 2)" 1700
expect_exit 0 pd ingest --repo "$R" "$T"/b* "$T/f2"
# f1 stored by the short sha of its folder name, without a repository
short_f1=$(f 1 | cut -c1-7)
bundle "$T/2026-04-11-$short_f1-syn" "" 1350
expect_exit 0 pd ingest --cache warm "$T/2026-04-11-$short_f1-syn"
[ "$(history_sql "SELECT DISTINCT git_sha FROM runs WHERE git_sha LIKE '$short_f1%'")" = "$short_f1" ] && ok ||
	not_ok "f1 not stored by its prefix"

# sides SHA-BASE SHA-CAND: the compare JSON in $T/out names these commits
sides() {
	if python3 - "$T/out" "$1" "$2" <<'PY'; then ok; else not_ok "sides of '$3'"; fi
import json, sys
d = json.load(open(sys.argv[1]))
assert "commit %s," % sys.argv[2] in d["baseline"]["provenance"], d["baseline"]["provenance"]
assert "commit %s," % sys.argv[3] in d["candidate"]["provenance"], d["candidate"]["provenance"]
PY
}
expect_exit 0 pd compare HEAD~1 HEAD --repo "$R" --scenario syn -f json
sides "$(c 9)" "$(c 10)" "HEAD~1 HEAD"
expect_no_grep "reversed" "$T/err"
# the newer commit given as the baseline: the stored commit dates say so
expect_exit 0 pd compare HEAD HEAD~1 --repo "$R" --scenario syn
expect_grep "warning: the baseline's commit (2026-04-10.*) is newer than the candidate's (2026-04-09.*): are the sides reversed?" "$T/err"
expect_exit 1 pd compare v1.0 main --repo "$R" --scenario syn -f json
sides "$(c 2)" "$(c 10)" "v1.0 main"
expect_exit 1 pd compare "$(c 5 | cut -c1-8)" feature --repo "$R" --scenario syn -f json
sides "$(c 5)" "$(f 2)" "short feature"
# A...B: the merge base of main and feature is the seventh commit.
expect_exit 1 pd compare main...feature feature --repo "$R" --scenario syn -f json
sides "$(c 7)" "$(f 2)" "main...feature feature"
expect_exit 0 pd compare ...feature feature~1 --repo "$R" --scenario syn -f json
sides "$(c 7)" "$short_f1" "...feature feature~1 (stored by a prefix)"
# Without --repo: stored sha prefixes only.
expect_exit 0 pd compare "$(c 9 | cut -c1-10)" "$(c 10 | cut -c1-10)" --scenario syn
expect_exit 2 pd compare HEAD~1 HEAD --scenario syn
expect_grep "'HEAD~1' is not a stored sha prefix; a name such as HEAD~1 needs --repo DIR" "$T/err"
expect_lines 1 "$T/err"
# Unknown to git: one line naming it.
expect_exit 2 pd compare nosuch HEAD --repo "$R" --scenario syn
expect_grep "^perfdiff: error: $R: 'nosuch' is not a commit there$" "$T/err"
expect_exit 2 pd compare main...nosuch HEAD --repo "$R" --scenario syn
expect_grep "^perfdiff: error: $R: 'nosuch' (in main...nosuch) is not a commit there$" "$T/err"
expect_exit 2 pd compare --repo "$R" --scenario syn -- --exec=x HEAD
expect_grep "'--exec=x' is not a commit there" "$T/err"

# check db:REV[:SCENARIO] with --repo: the step between HEAD~5 and HEAD~4.
expect_exit 1 pd check db:HEAD~5:syn db:HEAD~4:syn --repo "$R"
expect_exit 0 pd check db:HEAD~1:syn "db:main:syn:warm" --repo "$R"

# culprit and trend: --alert-after REV as git reads it.
expect_exit 0 pd culprit --scenario syn --repo "$R"
expect_grep "^first bad: $(c 6)$" "$T/out"
expect_exit 0 pd culprit --scenario syn --repo "$R" --alert-after v1.0
expect_grep "^first bad: $(c 6)$" "$T/out"
expect_exit 1 pd culprit --scenario syn --repo "$R" --alert-after HEAD~4
expect_grep "^no change point in syn/warm after HEAD~4 over 10 commits" "$T/out"
expect_exit 1 pd trend --scenario syn --repo "$R" --alert-after HEAD~5
expect_exit 0 pd trend --scenario syn --repo "$R" --alert-after HEAD~4
expect_exit 2 pd trend --scenario syn --alert-after HEAD~4
expect_grep "alert-after HEAD~4: not a stored sha prefix; a name such as HEAD~1 needs --repo DIR" "$T/err"

# During a git bisect HEAD is an old commit: trend and culprit still
# order the history by the branch the bisect started from (main), not
# by HEAD's ancestry, which would leave out the five commits after c05.
git -C "$R" bisect start -q main "$(c 2)" >/dev/null 2>&1 ||
	git -C "$R" bisect start main "$(c 2)" >/dev/null 2>&1
git -C "$R" checkout -q "$(c 5)"
expect_exit 1 pd trend --scenario syn --repo "$R"
expect_grep "^perfdiff trend: scenario syn, .*: 10 commits" "$T/out"
expect_exit 0 pd culprit --scenario syn --repo "$R"
expect_grep "^first bad: $(c 6)$" "$T/out"
git -C "$R" bisect reset -q >/dev/null 2>&1 || git -C "$R" bisect reset >/dev/null 2>&1

# site --repo: its trend pages in git's order too. HEAD is main: the
# feature branch's stored commit f2 is not on its line and is left out,
# where the commit-date order of a site without --repo shows it.
expect_exit 0 pd site "$T/site-git" --repo "$R"
expect_exit 0 pd site "$T/site-date"
short_f2=$(f 2 | cut -c1-12)
grep -rq "$short_f2" "$T/site-date/s" && ok || not_ok "f2 missing from the commit-date site"
grep -rq "$short_f2" "$T/site-git/s" && not_ok "f2 on the git-ordered site" || ok
grep -rq "$(c 10 | cut -c1-12)" "$T/site-git/s" && ok || not_ok "c10 missing from the git-ordered site"
finish
