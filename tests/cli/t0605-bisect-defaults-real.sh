#!/bin/sh
# git bisect run scripts/bisect-perf.sh with its defaults, on real perf
# recordings of a short scenario (about 0.3 s), warm and cold: a
# throw-away repository of twelve commits of the workload program, the
# seventh making parse_record() twice as slow; the history holds the
# first commit only, recorded as a nightly job would, warm and cold
# (cold: the binary dropped from the page cache before each run), at
# 3000 Hz, which is neither perf's default nor the helper's old one. Both
# bisects must name the seventh commit with no commit skipped, record at
# the history's rate and in its cache state (the kept bundles say so; no
# warm-up run before cold ones). Recorded again when a recording fails
# (lib.sh, measured).
. "$(dirname "$0")/lib.sh"
command -v git >/dev/null || { echo "skipped: git not installed"; exit 77; }
command -v perf >/dev/null || { echo "skipped: perf not installed"; exit 77; }
if ! perf record -q -o "$T/probe.data" true >/dev/null 2>&1; then
	echo "skipped: perf cannot record here (perf_event_paranoid?)"
	exit 77
fi
export PERFDIFF_DB="$T/hist.db"
repo=$T/repo
build='cc -O2 -g -fno-omit-frame-pointer -o prog prog.c'

# bisect CACHE: the bisect of commits 1..12 against the stored commit 1
bisect() {
	rm -rf "$T/keep-$1" "$T/runs-$1.log"
	git bisect start "$sha_12" "$sha_1" >/dev/null 2>&1
	PERFDIFF=$PERFDIFF git bisect run sh "$PD_ROOT/scripts/bisect-perf.sh" \
		--build "$build" --run "./prog 550 && echo run >>$T/runs-$1.log" \
		--baseline "db:$sha_1:wl:$1" --function parse_record \
		--keep "$T/keep-$1" >"$T/bisect-$1.out" 2>&1
	bad=$(git rev-parse refs/bisect/bad 2>/dev/null)
	git bisect reset >/dev/null 2>&1
	if [ "$bad" = "$sha_7" ]; then ok; else
		not_ok "$1 bisect ended on $bad, want $sha_7"
		grep bisect-perf "$T/bisect-$1.out" | tail -30 >&2
	fi
	expect_grep "$sha_7 is the first bad commit" "$T/bisect-$1.out"
	expect_no_grep "undecided\|skipped" "$T/bisect-$1.out"
	expect_grep "$1 runs at 3000 Hz (the stored runs' rate), in turn with" "$T/bisect-$1.out"
	# the kept bundles: the cache state, and perf's rate in what it wrote
	for b in "$T/keep-$1"/*/cand; do
		expect_grep "\"cache\": \"$1\"" "$b/build_meta.json"
	done
	b=$(ls -d "$T/keep-$1"/*/cand | head -1)
	rm -f "$T/k.db"
	pd ingest --db "$T/k.db" "$b" >/dev/null 2>&1
	rate=$(pd runs --db "$T/k.db" -f tsv | cut -f11 | sort -n | sed -n 1p)
	case $rate in
	29[0-9][0-9]* | 30[0-9][0-9]*) ok ;;
	*) not_ok "the $1 runs recorded at $rate Hz, want 3000" ;;
	esac
	# how many runs it took: every step's, and the warm-ups
	recorded=$(sed -n 's/^bisect-perf: [0-9a-f]* \(good\|bad\) after \([0-9]*\) runs a side.*/\2/p' \
		"$T/bisect-$1.out" | awk '{ s += 2 * $1 } END { print s + 0 }')
	steps=$(grep -c '^bisect-perf: [0-9a-f]* \(good\|bad\) after' "$T/bisect-$1.out")
	warmups=$(( $(wc -l <"$T/runs-$1.log") - recorded ))
	if [ "$1" = cold ]; then want=0; else want=$((2 * steps)); fi
	[ "$warmups" -eq "$want" ] && ok || not_ok "$1: $warmups warm-up runs in $steps steps, want $want"
	echo "note: $1 bisect: $steps steps, $recorded recorded runs, $(grep -o 'after [0-9]* runs a side ([0-9]* s)' "$T/bisect-$1.out" | tr '\n' ' ')"
}

run() {
	rm -rf "$repo" "$T/b-warm" "$T/b-cold" "$PERFDIFF_DB" "$PERFDIFF_DB-wal" "$PERFDIFF_DB-shm"
	mkdir -p "$repo"
	cp "$PD_ROOT/fixtures/workload/workload.c" "$repo/prog.c"
	cd "$repo" || exit 1
	git init -q . && git config user.email t@example.org && git config user.name t
	n=1
	while [ "$n" -le 12 ]; do
		if [ "$n" -eq 7 ]; then
			sed 's/#define PARSE_WORK 2000/#define PARSE_WORK 4000/' prog.c >prog.c.new &&
				mv prog.c.new prog.c
		else
			echo "/* revision $n */" >>prog.c
		fi
		git add prog.c
		GIT_COMMITTER_DATE="2026-03-$(printf %02d "$n")T12:00:00Z" \
			git commit -q --date "2026-03-$(printf %02d "$n")T12:00:00Z" -m "revision $n"
		eval "sha_$n=$(git rev-parse HEAD)"
		n=$((n + 1))
	done
	# the history: commit 1, three runs warm (after a warm-up) and three
	# cold, at 3000 Hz
	git checkout -q "$sha_1"
	sh -c "$build" || { not_ok "build"; return; }
	for c in warm cold; do
		b=$T/b-$c
		mkdir -p "$b/profiles"
		printf '{"git_sha": "%s", "scenario": "wl", "cache": "%s"}\n' "$sha_1" "$c" >"$b/build_meta.json"
		[ "$c" = warm ] && ./prog 550 >/dev/null
		for r in 1 2 3; do
			[ "$c" = cold ] && dd if=prog iflag=nocache count=0 status=none 2>/dev/null
			perf record -q -g -F 3000 -o "$T/p.data" ./prog 550 >/dev/null 2>&1
			perf script -i "$T/p.data" >"$b/profiles/perf.script.$r.txt" 2>/dev/null
		done
	done
	rm -f prog "$T/p.data"
	git checkout -q master 2>/dev/null || git checkout -q main 2>/dev/null || git checkout -q "$sha_12"
	expect_exit 0 pd ingest "$T/b-warm" "$T/b-cold"
	bisect warm
	bisect cold
	cd "$T" || exit 1
}
measured run
finish
