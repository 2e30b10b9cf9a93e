#!/bin/sh
# scripts/bisect-perf.sh's decisions, with a stand-in profiler (--profile)
# whose numbers are set by hand, so that every outcome is known: a
# repository of eight commits whose "build" writes parse's sample count
# (1000, then 1600 from commit 5 on: +60 %), and a profile command that
# writes folded stacks of that count, each run moved by the next factor
# of a fixed list (a run-to-run spread of about 10 %, more than three runs
# a side can call "within 10 %"). The history holds commit 1, warm and
# cold. Checked: the bisect names commit 5 with no commit skipped, the
# good commits took more runs than the first look (it kept recording), a
# bad one did not; baseline and checkout take turns; the cache state
# comes from the history (cold: no warm-up run, the cold command before
# every run, by default the run command's files out of the page cache;
# bundles say cold), a baseline with both states and none chosen stops
# the bisect; a spent budget skips and says how many runs a side would
# tell, and that many do; a change at the threshold says the threshold
# is the question; without the baseline build it compares with the
# stored runs; another profiler's stored runs say how to record.
. "$(dirname "$0")/lib.sh"
command -v git >/dev/null || { echo "skipped: git not installed"; exit 77; }
history_db h
repo=$T/repo
mkdir -p "$repo"
cd "$repo" || exit 1
git init -q . && git config user.email t@example.org && git config user.name t
for n in 1 2 3 4 5 6 7 8; do
	w=1000
	[ "$n" -ge 5 ] && w=1600
	printf 'parse %d\nrevision %d\n' "$w" "$n" >prog.txt
	git add prog.txt
	GIT_COMMITTER_DATE="2026-03-0${n}T12:00:00Z" \
		git commit -q --date "2026-03-0${n}T12:00:00Z" -m "revision $n"
	eval "sha_$n=$(git rev-parse HEAD)"
done
# the stand-in profiler: parse's count from the build, times the next
# factor (the list is cycled; one counter for both builds, which take
# turns, so each build gets every other factor: both halves average 1),
# read and other steady
cat >"$T/factors" <<'EOF'
1.00
1.10
0.86
0.90
1.16
1.04
0.94
0.82
1.08
1.12
0.96
1.02
EOF
cat >"$T/prof.sh" <<'EOF'
k=$(cat "$T/count" 2>/dev/null || echo 0)
echo $((k + 1)) >"$T/count"
f=$(sed -n "$((k % 12 + 1))p" "$T/factors")
w=$(cat build.out)
printf 'main;parse %d\nmain;read 2000\nmain;other 500\n' \
	"$(awk -v w="$w" -v f="$f" 'BEGIN { printf "%d", w * f }')" >"$PD_PROFILE_OUT"
echo "$(pwd)" >>"$T/order"
EOF
export T
build='sed -n "s/^parse //p" prog.txt >build.out'
runcmd="echo run >>$T/runs.log"
bisect_perf() {
	env PERFDIFF="$PERFDIFF" sh "$PD_ROOT/scripts/bisect-perf.sh" --build "$build" \
		--run "$runcmd" --profile "sh $T/prof.sh" --function '^parse' "$@"
}
# the history: commit 1, three runs warm and three cold, as a night has them
git checkout -q "$sha_1"
sh -c "$build"
for c in warm cold; do
	b=$T/b-$c
	mkdir -p "$b/profiles"
	printf '{"git_sha": "%s", "scenario": "s", "cache": "%s"}\n' "$sha_1" "$c" >"$b/build_meta.json"
	for r in 1 2 3; do
		PD_PROFILE_OUT=$b/profiles/run.$r.folded sh "$T/prof.sh"
	done
done
rm -f "$T/count" "$T/order" build.out
expect_exit 0 pd ingest "$T/b-warm" "$T/b-cold"
git checkout -q "$sha_8"

# A warm bisect: commit 5, nothing skipped.
git bisect start "$sha_8" "$sha_1" >/dev/null 2>&1
PERFDIFF=$PERFDIFF git bisect run sh "$PD_ROOT/scripts/bisect-perf.sh" \
	--build "$build" --run "$runcmd" --profile "sh $T/prof.sh" --function '^parse' \
	--baseline "db:$sha_1:s:warm" --keep "$T/keep" >"$T/bisect.out" 2>&1
bad=$(git rev-parse refs/bisect/bad 2>/dev/null)
[ "$bad" = "$sha_5" ] && ok || { not_ok "bisect ended on $bad, want $sha_5"; tail -30 "$T/bisect.out" >&2; }
expect_no_grep "skip" "$T/bisect.out"
git bisect reset -q 2>/dev/null || git bisect reset >/dev/null 2>&1
# every step looked again until it could tell: the good ones took more
# than the first three runs, the bad ones three
grep -o '^bisect-perf: [0-9a-f]* good after [0-9]* runs' "$T/bisect.out" | awk '{ print $5 }' >"$T/good.n"
grep -o '^bisect-perf: [0-9a-f]* bad after [0-9]* runs' "$T/bisect.out" | awk '{ print $5 }' >"$T/bad.n"
[ -s "$T/good.n" ] && [ "$(sort -n "$T/good.n" | head -1)" -gt 3 ] && ok ||
	not_ok "good steps after $(tr '\n' ' ' <"$T/good.n") runs: want more than 3"
[ -s "$T/bad.n" ] && [ "$(sort -n "$T/bad.n" | tail -1)" -eq 3 ] && ok ||
	not_ok "bad steps after $(tr '\n' ' ' <"$T/bad.n") runs: want 3"
expect_grep "3 runs a side: parse.* inconclusive" "$T/bisect.out"
# baseline (its clone under .git) and checkout in turn, baseline first
awk -v r="$repo" '{ print ($0 == r) ? "c" : "b" }' "$T/order" | tr -d '\n' >"$T/turns"
case $(cat "$T/turns") in
b*) grep -q 'bb\|cc' "$T/turns" && not_ok "not in turn: $(cat "$T/turns")" || ok ;;
*) not_ok "the checkout first: $(cat "$T/turns")" ;;
esac
grep -q "$repo/.git/perfdiff-bisect/$sha_1" "$T/order" && ok || not_ok "the baseline build ran elsewhere: $(sort -u "$T/order")"
# warm: one warm-up run of each build per step
steps=$(grep -c '^bisect-perf: [0-9a-f]* \(good\|bad\) after' "$T/bisect.out")
[ "$(wc -l <"$T/runs.log")" -eq $((2 * steps)) ] && ok || not_ok "$(wc -l <"$T/runs.log") warm-up runs in $steps steps"
expect_grep '"cache": "warm"' "$T/keep/$sha_5/cand/build_meta.json"

# Cold: from the history when the baseline says it; no warm-up, the cold
# command before every run, the bundles cold.
rm -f "$T/runs.log" "$T/order"
git checkout -q "$sha_6"
expect_exit 1 bisect_perf --baseline "db:$sha_1:s:cold" --cold-cmd "echo cold >>$T/cold.log" \
	--keep "$T/keep"
expect_grep '"cache": "cold"' "$T/keep/$sha_6/cand/build_meta.json"
expect_grep '"cache": "cold"' "$T/keep/$sha_6/base/build_meta.json"
[ ! -e "$T/runs.log" ] && ok || not_ok "a warm-up run before cold runs"
[ "$(wc -l <"$T/cold.log")" -eq "$(wc -l <"$T/order")" ] && ok ||
	not_ok "$(wc -l <"$T/cold.log") cold commands for $(wc -l <"$T/order") runs"
expect_grep "cold runs, in turn with" "$T/err"
# by default, cold drops the page cache of the files the run command
# names, before every run (seen by fincore where the file system lets
# dd drop a file's pages)
head -c 1000000 /dev/zero >data.bin
if command -v fincore >/dev/null && cat data.bin >/dev/null && sync data.bin 2>/dev/null &&
	dd if=data.bin iflag=nocache count=0 status=none 2>/dev/null &&
	[ "$(fincore --raw -n -o PAGES data.bin)" = 0 ]; then
	rm -f "$T/pages"
	expect_exit 1 env PERFDIFF="$PERFDIFF" sh "$PD_ROOT/scripts/bisect-perf.sh" \
		--build "$build" --run "cat data.bin" --function '^parse' \
		--profile "fincore --raw -n -o PAGES data.bin >>$T/pages; cat data.bin >/dev/null; sh $T/prof.sh" \
		--baseline "db:$sha_1:s:cold" --baseline-rev none
	[ -s "$T/pages" ] && [ "$(sort -u "$T/pages")" = 0 ] && ok ||
		not_ok "pages of data.bin cached before cold runs: $(tr '\n' ' ' <"$T/pages")"
else
	echo "note: dd cannot drop a file's pages here: the default cold command unchecked"
fi
rm -f data.bin
# both states stored and none chosen: stop, naming them; --cache chooses
expect_exit 128 bisect_perf --baseline "db:$sha_1:s"
expect_grep "several cache states in s (cold warm): choose with --cache" "$T/err"
expect_exit 1 bisect_perf --baseline "db:$sha_1:s" --cache cold --cold-cmd true
expect_exit 128 bisect_perf --baseline "db:$sha_1:s" --cache lukewarm

# The budget spent: skip, with the runs a side that would tell.
git checkout -q "$sha_3"
rm -f "$T/count" # the same factors for both calls
expect_exit 125 bisect_perf --baseline "db:$sha_1:s:warm" --runs 3 --threshold 5
expect_grep "undecided after 3 runs a side.*: skipped; about [0-9]* runs a side would likely decide it ([0-9]* more: --runs [0-9]*)" "$T/err"
need=$(sed -n 's/.*about \([0-9]*\) runs a side.*/\1/p' "$T/err")
more=$(sed -n 's/.* (\([0-9]*\) more: --runs.*/\1/p' "$T/err")
[ "$need" -gt 3 ] && [ "$more" -eq $((need - 3)) ] && ok || not_ok "about $need runs, $more more"
# and that many do decide it (the stand-in's spread stays what it was)
rm -f "$T/count"
expect_exit 0 bisect_perf --baseline "db:$sha_1:s:warm" --runs "$need" --threshold 5

# A change at the threshold itself (+10 %, a checkout of parse 1100):
# more runs are not the way out, and it says so.
printf 'parse 1100\n' >prog.txt
rm -f "$T/count"
expect_exit 125 bisect_perf --baseline "db:$sha_1:s:warm" --runs 6
expect_grep "undecided after 6 runs a side.*: skipped; the change lies at the 10 % threshold (about [0-9]* runs a side would decide it): a threshold farther from it decides with fewer runs" "$T/err"
git checkout -q prog.txt

# Without the baseline build: the stored runs themselves.
git checkout -q "$sha_7"
expect_exit 1 bisect_perf --baseline "db:$sha_1:s:warm" --baseline-rev none
expect_grep "compared with the runs of db:$sha_1:s:warm" "$T/err"
# the stored runs of another profiler say how to record when the
# baseline build is at hand; compared with, they would not do
expect_exit 1 bisect_perf --baseline "db:$sha_1:s:warm" --tool perf
expect_grep "no stored runs of $sha_1 by perf: recording as its folded runs were" "$T/err"
expect_exit 128 bisect_perf --baseline "db:$sha_1:s:warm" --tool perf --baseline-rev none
expect_grep "no stored runs of $sha_1 in s/warm by perf" "$T/err"
# errors stop the bisect
expect_exit 128 bisect_perf --baseline "db:$sha_1:nosuch:warm"
expect_exit 128 bisect_perf --baseline "db:$sha_1"
# a checkout that does not build is skipped; a baseline that does not
# build stops (its build is kept between steps: removed here)
git checkout -q "$sha_2"
expect_exit 125 env PERFDIFF="$PERFDIFF" sh "$PD_ROOT/scripts/bisect-perf.sh" --build false \
	--run true --baseline "db:$sha_1:s:warm" --profile "sh $T/prof.sh"
expect_grep "does not build: skipped" "$T/err"
rm -rf "$repo/.git/perfdiff-bisect"
expect_exit 128 env PERFDIFF="$PERFDIFF" sh "$PD_ROOT/scripts/bisect-perf.sh" --build false \
	--run true --baseline "db:$sha_1:s:warm" --profile "sh $T/prof.sh"
expect_grep "the baseline $sha_1 does not build: stopping" "$T/err"
finish
