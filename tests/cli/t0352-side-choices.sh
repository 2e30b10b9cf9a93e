#!/bin/sh
# A commit stored with runs of several cache states and tools: compare
# names each state and tool once ("has cold, warm runs", not "cold, warm,
# warm" when warm has two tools) and asks for the one to take, unless
# the other side is a bundle of one tool and one cache state.
. "$(dirname "$0")/lib.sh"
history_db h
for s in 1 2; do
	b=$T/b$s
	mkdir -p "$b/profiles"
	printf '{"git_sha": "%040d", "scenario": "x", "commit_date": "2026-01-0%dT00:00:00Z"}\n' \
		"$s" "$s" >"$b/build_meta.json"
	for f in perf-cold perf-warm perfview-warm perfview-cold; do
		printf 'main;parse 1000\nmain;read 500\n' >"$b/profiles/$f.folded"
	done
done
expect_exit 0 pd ingest "$T/b1" "$T/b2"
one=0000000000000000000000000000000000000001
two=0000000000000000000000000000000000000002
expect_exit 2 pd compare $one $two --scenario x
expect_grep "^perfdiff: commit 000000000000 has cold, warm runs; pass --cache$" "$T/err"
expect_exit 2 pd compare $one $two --scenario x --cache warm
expect_grep "^perfdiff: commit 000000000000 has runs of several tools (folded, perfview); pass --tool$" "$T/err"
expect_exit 0 pd compare $one $two --scenario x --cache warm --tool perfview
# Against a bundle whose runs are of one tool and one cache state (a pull
# request's check, ci.md): the stored commit's runs of those, no option.
b=$T/b3
mkdir -p "$b/profiles"
printf '{"git_sha": "%040d", "scenario": "x"}\n' 3 >"$b/build_meta.json"
printf 'main;parse 1000\nmain;read 500\n' >"$b/profiles/perfview-warm.folded"
# (1 500 samples a side: too few to decide, check's 125)
expect_exit 125 pd check "db:$one:x" "$b" -f json
expect_grep "cache warm; 1 perfview run from the history" "$T/out"
expect_no_grep "pass --tool\|pass --cache" "$T/err"
# a bundle of two tools still asks which
cp "$T/b1/profiles/perf-warm.folded" "$b/profiles/"
expect_exit 128 pd check "db:$one:x" "$b"
expect_grep "has runs of several tools (folded, perfview); pass --tool" "$T/err"
finish
