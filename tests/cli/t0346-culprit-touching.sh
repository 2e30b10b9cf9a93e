#!/bin/sh
# culprit ranks the commits of a range by what they touched (docs/cli.md,
# "culprit"): with --repo, the commits between the last good and the
# first bad stored commit whose changes add or remove a line naming a
# function of the change are listed first. The history: nine commits of
# a program, runs stored for commits 1-3 and 7-9 only, and parse stepping
# from 1000 to 1300 samples from commit 5, the one commit of 4..7 whose
# diff names parse (the others edit a README and another function).
. "$(dirname "$0")/lib.sh"
command -v git >/dev/null || { echo "git not installed: skipped"; exit 77; }
cd "$T" || exit 1
history_db c
R=$T/repo
mkdir "$R" && git -C "$R" init -q -b main
commit() { # commit N MESSAGE FILE TEXT
	printf '%s\n' "$4" >>"$R/$3"
	git -C "$R" add "$3"
	GIT_COMMITTER_DATE="2026-05-0${1}T12:00:00+00:00" GIT_AUTHOR_DATE="2026-05-0${1}T12:00:00+00:00" \
		git -C "$R" -c user.name=t -c user.email=t@e commit -q -m "$2"
}
commit 1 "first" app.c "int main(void) { return parse(); }"
commit 2 "docs" README "how to build"
commit 3 "read: larger buffer" app.c "static char buf[8192]; /* read */"
commit 4 "docs: usage" README "how to run"
commit 5 "parse: validate every field twice" app.c "int parse(void) { check(); check(); }"
commit 6 "read: retry" app.c "int read_retry(void);"
commit 7 "docs: faq" README "faq"
commit 8 "other" app.c "/* other */"
commit 9 "tidy" README "tidy"
git -C "$R" rev-list --reverse main >"$T/shas"
c() { sed -n "${1}p" "$T/shas"; }
for n in 1 2 3 7 8 9; do
	p=1000
	[ "$n" -ge 5 ] && p=1300
	b=$T/b$n
	mkdir -p "$b/profiles"
	printf '{"git_sha": "%s", "scenario": "s", "cache": "warm"}\n' "$(c $n)" >"$b/build_meta.json"
	for r in 1 2 3; do
		j=$(( (r - 2) * 3 ))
		printf 'main;parse %s\nmain;read %s\nmain;other %s\n' \
			$((p + j)) $((2000 - j)) $((500 + j)) >"$b/profiles/run.$r.folded"
	done
done
expect_exit 0 pd ingest --repo "$R" "$T"/b*
expect_exit 0 pd culprit --scenario s --repo "$R" --p 0.05
expect_grep "^first bad: $(c 7)" "$T/out"
expect_grep "^4 commits to test between them$" "$T/out"
expect_grep "^likeliest first: 1 commit between them changes lines naming parse:$" "$T/out"
expect_grep "^  $(c 5 | cut -c1-7)[0-9a-f]* parse: validate every field twice$" "$T/out"
expect_no_grep "docs: usage\|read: retry" "$T/out"
# the bisect command is still there, for the whole range
expect_grep "^git bisect start $(c 7) $(c 3)$" "$T/out"
# without --repo, no ranking (and no git)
expect_exit 0 pd culprit --scenario s --p 0.05
expect_no_grep "likeliest" "$T/out"
finish
