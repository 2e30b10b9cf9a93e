#!/bin/sh
# End to end with real tools: a throw-away git repository of a small C
# program, twelve commits, the seventh making parse_record() twice as
# slow. Each commit is built and profiled with perf record -g (three runs)
# into a bundle and ingested; then trend must put the change point on the
# seventh commit, culprit must name it, and git bisect run with
# scripts/bisect-perf.sh must end on it. Recorded once more when the
# first recording fails (lib.sh, measured).
. "$(dirname "$0")/lib.sh"
command -v git >/dev/null || { echo "skipped: git not installed"; exit 77; }
command -v perf >/dev/null || { echo "skipped: perf not installed"; exit 77; }
if ! perf record -q -o "$T/probe.data" true >/dev/null 2>&1; then
	echo "skipped: perf cannot record here (perf_event_paranoid?)"
	exit 77
fi
export PERFDIFF_DB="$T/hist.db"
repo=$T/repo
run() {
	rm -rf "$repo" "$T/bundles" "$PERFDIFF_DB" "$PERFDIFF_DB-wal" "$PERFDIFF_DB-shm" "$T/seen.txt"
	mkdir -p "$repo"
	cp "$PD_ROOT/fixtures/workload/workload.c" "$repo/prog.c"
	cd "$repo" || exit 1
	git init -q . && git config user.email t@example.org && git config user.name t
	build='cc -O2 -g -fno-omit-frame-pointer -o prog prog.c'
	runcmd='./prog 1200'
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
		sha=$(git rev-parse HEAD)
		eval "sha_$n=$sha"
		sh -c "$build" || { not_ok "build of revision $n"; return; }
		b=$T/bundles/$n
		mkdir -p "$b/profiles"
		printf '{"git_sha": "%s", "scenario": "wl", "cache": "warm", "commit_date": "2026-03-%02dT12:00:00Z"}\n' \
			"$sha" "$n" >"$b/build_meta.json"
		$runcmd >/dev/null
		r=1
		while [ "$r" -le 3 ]; do
			perf record -q -g -F 1999 -o "$T/p.data" $runcmd >/dev/null 2>&1
			perf script -i "$T/p.data" >"$b/profiles/perf.script.$r.txt" 2>/dev/null
			r=$((r + 1))
		done
		n=$((n + 1))
	done
	rm -f "$T/p.data"
	expect_exit 0 pd ingest "$T"/bundles/*

	# trend: one alert, on revision 7, from parse_record (a 15 % threshold:
	# a busy machine can move a short run by 5 %, and this test is about the
	# pipeline, not about sensitivity)
	expect_exit 1 pd trend --scenario wl --threshold 15 -f json
	cp "$T/out" "$T/trend.json"
	if python3 - "$T/trend.json" "$sha_7" "$sha_6" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["commits"]) == 12, len(d["commits"])
assert len(d["alerts"]) == 1, d["alerts"]
a = d["alerts"][0]
assert a["first_bad"] == sys.argv[2], a
assert a["last_good"] == sys.argv[3], a
assert a["total_change_pct"] > 30, a
fns = [f["name"] for f in a["functions"]]
assert fns and fns[0].startswith("parse_record"), fns
assert a["functions"][0]["change_pct"] > 60, a["functions"][0]
PY
	then ok; else not_ok "trend change point on revision 7"; pd trend --scenario wl --threshold 15 >&2; fi
	expect_exit 1 pd trend --scenario wl --threshold 15
	expect_grep "ALERT wl/warm: total +.* at $(echo "$sha_7" | cut -c1-10), from parse_record" "$T/out"
	# the same in git's own order, and an HTML page with one chart per series
	expect_exit 1 pd trend --scenario wl --threshold 15 --repo "$repo" -f html -o "$T/trend.html"
	n=$(grep -c '<svg' "$T/trend.html")
	[ "$n" -ge 2 ] && ok || not_ok "HTML has $n charts"
	expect_grep 'class="cp"' "$T/trend.html"
	# nothing after revision 7: --alert-after the change is quiet
	expect_exit 0 pd trend --scenario wl --threshold 15 --alert-after "$sha_8"
	# --state: reported once, then quiet
	expect_exit 1 pd trend --scenario wl --threshold 15 --state "$T/seen.txt"
	expect_exit 0 pd trend --scenario wl --threshold 15 --state "$T/seen.txt"
	expect_grep "$sha_7" "$T/seen.txt"
	# a pattern that matches nothing moved: no alert from functions alone
	expect_exit 0 pd trend --scenario wl --threshold 15 --function '^hash_key' --top 1 --alert-after "$sha_7"

	# culprit: adjacent commits in the repository
	expect_exit 0 pd culprit --scenario wl --threshold 15 --repo "$repo"
	expect_grep "first bad: $sha_7" "$T/out"
	expect_grep "last good: $sha_6" "$T/out"
	expect_grep "adjacent" "$T/out"
	expect_exit 0 pd culprit --scenario wl --threshold 15 --function parse_record
	expect_grep "git bisect start $sha_7 $sha_6" "$T/out"

	# check: stored good vs stored bad, and a bundle against the history
	expect_exit 1 pd check "db:$sha_6:wl" "db:$sha_7:wl"
	# (three short runs resolve about 12 % on a quiet machine, but 26-50 %
	# on a busy one, where a 25 % threshold left "too noisy to tell"; the
	# planted change doubles parse_record, so 50 % still separates it)
	expect_exit 0 pd check "db:$sha_1:wl" "db:$sha_5:wl" --function parse_record --threshold 50
	expect_exit 1 pd check "db:$sha_1:wl:warm" "$T/bundles/12" --function parse_record
	expect_exit 0 pd check "$T/bundles/2" "$T/bundles/3" --function parse_record --threshold 50
	expect_exit 128 pd check "db:ffff:wl" "$T/bundles/3"

	# git bisect run between revision 1 (good) and 12 (bad) ends on 7,
	# each step compared with the stored runs of revision 1 (t0605 runs
	# the default, the two builds recorded in turn)
	git bisect start "$sha_12" "$sha_1" >/dev/null 2>&1
	PERFDIFF=$PERFDIFF git bisect run "$PD_ROOT/scripts/bisect-perf.sh" \
		--build "$build" --run "$runcmd" --baseline "db:$sha_1:wl:warm" \
		--baseline-rev none --function parse_record --freq 1999 \
		-- --threshold 50 >"$T/bisect.out" 2>&1
	bad=$(git rev-parse refs/bisect/bad 2>/dev/null)
	if [ "$bad" = "$sha_7" ]; then ok; else
		not_ok "bisect ended on $bad, want $sha_7"
		tail -30 "$T/bisect.out" >&2
	fi
	expect_grep "$sha_7 is the first bad commit" "$T/bisect.out"
	git bisect reset >/dev/null 2>&1
	cd "$T" || exit 1
}
measured run
finish
