#!/bin/sh
# culprit --repo ranks the commits of a range by what they changed
# (docs/cli.md, "culprit"), on a real repository of a small C program:
# 13 commits on the first-parent line and a feature branch, with docs-only,
# test-only and code commits. The branch's second commit makes
# parse_record validate every record twice (parse_record 1000 -> 1300
# samples); the branch is merged with a merge commit. Runs are stored for
# the line's commits only, so the three branch commits between the last
# good and the first bad stored commit (the merge) are not. Checked: the
# planted commit ranks first with the lines it changed in parse_record,
# read by hand from the file; the merge is said; commits that changed
# docs or tests alone rank last; bisect-perf.sh --first tests the
# likeliest commit and its parent first and git bisect names it at once.
. "$(dirname "$0")/lib.sh"
command -v git >/dev/null || { echo "git not installed: skipped"; exit 77; }
cd "$T" || exit 1
history_db c
R=$T/repo
mkdir "$R" && git -C "$R" init -q -b main
n=0
commit() { # commit MESSAGE: what the working tree has now
	n=$((n + 1))
	git -C "$R" add -A
	GIT_COMMITTER_DATE="2026-05-$(printf %02d $n)T12:00:00+00:00" \
		GIT_AUTHOR_DATE="2026-05-$(printf %02d $n)T12:00:00+00:00" \
		git -C "$R" -c user.name=t -c user.email=t@e commit -q -m "$1"
	echo "$1 $(git -C "$R" rev-parse HEAD)" >>"$T/commits"
}
sha() { grep "^$1 [0-9a-f]*$" "$T/commits" | awk '{ print $NF }'; }
cat >"$R/app.c" <<'C'
#include <stdio.h>
#include <string.h>

static unsigned checksum(const char *s, size_t n)
{
	unsigned h = 5381;

	while (n--)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

static size_t read_input(char *buf, size_t cap)
{
	return fread(buf, 1, cap, stdin);
}

static unsigned parse_record(const char *rec, size_t len)
{
	unsigned sum = 0;

	sum ^= checksum(rec, len);
	return sum;
}

static unsigned build_index(const char *buf, size_t n)
{
	return checksum(buf, n / 2);
}

int main(void)
{
	static char buf[1 << 16];
	size_t n = read_input(buf, sizeof(buf));

	printf("%u\n", parse_record(buf, n) ^ build_index(buf, n));
	return 0;
}
C
echo "app: reads records" >"$R/README"
commit "first"
echo "how to build: cc app.c" >>"$R/README"
commit "docs: build"
mkdir -p "$R/tests" && echo 'echo x | ./app' >"$R/tests/run.sh"
commit "tests: a smoke test"
sed -i 's|return checksum(buf, n / 2);|return checksum(buf, n / 2) + 1;|' "$R/app.c"
commit "index: one more slot"
sed -i 's|return fread(buf, 1, cap, stdin);|return fread(buf, 1, cap - 1, stdin);|' "$R/app.c"
commit "read: leave room for a NUL"
git -C "$R" checkout -q -b feature
echo "records are validated" >>"$R/README"
echo "add_executable(app app.c)" >"$R/CMakeLists.txt"
commit "docs: validation"
sed -i 's|^\tsum ^= checksum(rec, len);$|\tsum ^= checksum(rec, len);\n\t/* validate every record twice */\n\tsum ^= checksum(rec, len) \& 0;|' "$R/app.c"
commit "parse: validate every record twice"
echo 'echo y | ./app' >>"$R/tests/run.sh"
commit "tests: validation"
git -C "$R" checkout -q main
GIT_COMMITTER_DATE="2026-05-09T12:00:00+00:00" GIT_AUTHOR_DATE="2026-05-09T12:00:00+00:00" \
	git -C "$R" -c user.name=t -c user.email=t@e merge -q --no-ff -m "Merge branch 'feature': validation" feature
echo "merge $(git -C "$R" rev-parse HEAD)" >>"$T/commits"
n=9
echo "faq" >>"$R/README"
commit "docs: faq"
sed -i 's|return checksum(buf, n / 2) + 1;|return checksum(buf, n / 2) + 2;|' "$R/app.c"
commit "index: two more slots"
echo "tidy" >>"$R/README"
commit "docs: tidy"
echo 'echo z | ./app' >>"$R/tests/run.sh"
commit "tests: more"
[ "$(git -C "$R" rev-list --count HEAD)" -eq 13 ] && ok || not_ok "$(git -C "$R" rev-list --count HEAD) commits"
planted=$(sha "parse: validate every record twice")
# the lines the planted commit added, read from the file by hand
lines=$(git -C "$R" show "$planted:app.c" | grep -n "validate every record twice\|checksum(rec, len) & 0" | cut -d: -f1 | tr '\n' ' ')
set -- $lines
from=$1 to=$2
[ "$to" -eq $((from + 1)) ] && ok || not_ok "planted lines $lines"

# runs for the first-parent line's commits: parse 1000, 1300 from the merge
i=0
for c in $(git -C "$R" rev-list --first-parent --reverse main); do
	i=$((i + 1))
	p=1000
	git -C "$R" show "$c:app.c" | grep -q "validate every record twice" && p=1300
	b=$T/b$i
	mkdir -p "$b/profiles"
	printf '{"git_sha": "%s", "scenario": "s", "cache": "warm"}\n' "$c" >"$b/build_meta.json"
	for r in 1 2 3; do
		j=$(( (r - 2) * 3 ))
		printf 'main;parse_record %s\nmain;read_input %s\nmain;build_index %s\n' \
			$((p + j)) $((2000 - j)) $((500 + j)) >"$b/profiles/run.$r.folded"
	done
done
expect_exit 0 pd ingest --repo "$R" "$T"/b*
expect_exit 0 pd culprit --scenario s --repo "$R" --p 0.05
cp "$T/out" "$T/culprit.out"
expect_grep "^last good: $(sha "read: leave room for a NUL")$" "$T/out"
expect_grep "^first bad: $(sha merge)$" "$T/out"
expect_grep "^4 commits to test between them$" "$T/out"
expect_grep "^ranked by what they changed, likeliest first:$" "$T/out"
p10=$(printf '%.10s' "$planted")
expect_grep "^  1\. $p10 parse: validate every record twice: changed parse_record (app.c:$from-$to)$" "$T/out"
expect_grep "^  2\. $(sha merge | cut -c1-10) Merge branch 'feature': validation: changed parse_record (app.c:$from-$to)$" "$T/out"
# a CMakeLists.txt is a build file, not prose: that commit is no docs-only one
expect_grep "^  3\. $(sha "docs: validation" | cut -c1-10) docs: validation: changed build or other files$" "$T/out"
expect_grep "^  4\. $(sha "tests: validation" | cut -c1-10) tests: validation: docs and tests only$" "$T/out"
expect_grep "^the first bad commit is a merge: Merge branch 'feature': validation$" "$T/out"
expect_grep "^git bisect start $(sha merge) $(sha "read: leave room for a NUL")$" "$T/out"
expect_grep "^likeliest first: .*scripts/bisect-perf.sh --first $p10" "$T/out"
# without --repo, no ranking (and no git)
expect_exit 0 pd culprit --scenario s --p 0.05
expect_no_grep "ranked\|likeliest" "$T/out"

# The likeliest commit tested first: bad there, good at its parent, and
# git bisect names it without another step.
cat >"$T/prof.sh" <<'SH'
k=$(cat "$T/count" 2>/dev/null || echo 0)
echo $((k + 1)) >"$T/count"
j=$(( (k % 3 - 1) * 3 ))
p=1000
[ "$(cat build.out)" -gt 0 ] && p=1300
printf 'main;parse_record %d\nmain;read_input %d\nmain;build_index %d\n' \
	$((p + j)) $((2000 - j)) $((500 + j)) >"$PD_PROFILE_OUT"
SH
export T
cd "$R" || exit 1
git bisect start "$(sha merge)" "$(sha "read: leave room for a NUL")" >/dev/null 2>&1
PERFDIFF=$PERFDIFF sh "$PD_ROOT/scripts/bisect-perf.sh" --first "$p10" \
	--build 'grep -c "validate every record twice" app.c >build.out; true' \
	--run true --profile "sh $T/prof.sh" --function '^parse_record' \
	--baseline "db:$(sha "read: leave room for a NUL"):s:warm" >"$T/first.out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && ok || not_ok "bisect-perf --first exited $rc: $(tail -5 "$T/first.out")"
expect_grep "^$planted is the first bad commit" "$T/first.out"
[ "$(git rev-parse refs/bisect/bad)" = "$planted" ] && ok || not_ok "bisect's bad: $(git rev-parse refs/bisect/bad)"
git bisect reset -q 2>/dev/null || git bisect reset >/dev/null 2>&1
cd "$T" || exit 1
# outside a bisect, --first says what it needs
expect_exit 128 env PERFDIFF="$PERFDIFF" sh -c "cd '$R' && sh '$PD_ROOT/scripts/bisect-perf.sh' --first $p10 --run true --baseline db:x:s"
expect_grep "needs a started bisect" "$T/err"
finish
