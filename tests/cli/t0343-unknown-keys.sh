#!/bin/sh
# A scenario, cache state or tool the history does not hold, given to
# runs, compare, check, trend or culprit, is one error line naming what it
# holds (for the commit, when the history has it but the commit does
# not) and, for a near miss (two edits; one for three letters or less),
# the name meant; exit 2 (check: 128, for git bisect run). A name that is
# no sha says it needs --repo. The runbook's spellings of a cache state
# (Warm, ColdStart) are that state.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 1
history_db keys
B=$T/bundles
s1=a1b2c3d4e5f60718293a4b5c6d7e8f9012345678
s2=b2c3d4e5f60718293a4b5c6d7e8f901234567890
# bundle DIR SHA SCENARIO CACHE TOOL WEIGHT
bundle() {
	mkdir -p "$1/profiles"
	printf '{"git_sha": "%s", "scenario": "%s", "cache": "%s"}' "$2" "$3" "$4" >"$1/build_meta.json"
	printf 'main;parse %s\nmain;hash 50\n' "$6" >"$1/profiles/$5.folded"
}
bundle "$B/1" $s1 mft_small warm perfview 100
bundle "$B/2" $s2 mft_small warm perfview 110
bundle "$B/3" $s1 mft_small warm samply 120
bundle "$B/4" $s2 mft_small warm samply 130
bundle "$B/5" $s1 mft_large cold perfview 140
bundle "$B/6" $s2 mft_large cold perfview 150
expect_exit 0 pd ingest "$B"/1 "$B"/2 "$B"/3 "$B"/4 "$B"/5 "$B"/6
# one line, exit 2, the text asked for
refused() { # WANT-STATUS PATTERN CMD...
	st=$1 pat=$2
	shift 2
	expect_exit "$st" "$@"
	expect_grep "$pat" "$T/err"
	expect_lines 1 "$T/err"
	expect_no_grep "no stored runs" "$T/err"
}

# A misspelled scenario, everywhere.
msg="no scenario 'mft_smal'; did you mean 'mft_small'? (the history has mft_large, mft_small)"
refused 2 "$msg" pd compare a1b2c3d b2c3d4e --scenario mft_smal --tool perfview
refused 2 "$msg" pd trend --scenario mft_smal
refused 2 "$msg" pd culprit --scenario mft_smal
refused 2 "$msg" pd runs --scenario mft_smal
refused 128 "$msg" pd check db:a1b2c3d:mft_smal db:b2c3d4e:mft_small --tool perfview
# Far from any: no guess, the list alone.
refused 2 "no scenario 'parser' (the history has mft_large, mft_small)" pd trend --scenario parser
# A cache state that is no state, or not one of the scenario's.
refused 2 "no cache state 'hot' in scenario mft_small (the history has warm)" pd compare a1b2c3d b2c3d4e --scenario mft_small --cache hot --tool perfview
refused 2 "no cache state 'cold' in scenario mft_small (the history has warm)" pd trend --scenario mft_small --cache cold
refused 2 "no cache state 'wram' in scenario mft_small; did you mean 'warm'? (the history has warm)" pd culprit --scenario mft_small --cache wram
refused 2 "no cache state 'hot' (the history has cold, warm)" pd runs --cache hot
# A tool.
refused 2 "no tool 'perfveiw' in mft_small; did you mean 'perfview'? (the history has perfview, samply)" pd compare a1b2c3d b2c3d4e --scenario mft_small --tool perfveiw
refused 2 "no tool 'sampyl' in mft_small; did you mean 'samply'? (the history has perfview, samply)" pd trend --scenario mft_small --tool sampyl
refused 128 "no tool 'perfveiw' in mft_small/warm; did you mean 'perfview'?" pd check db:a1b2c3d:mft_small:warm db:b2c3d4e:mft_small:warm --tool perfveiw
refused 2 "no tool 'samply' in mft_large (the history has perfview)" pd trend --scenario mft_large --tool samply
# The history has it, the commit does not: what the commit has.
bundle "$B/7" c3d4e5f60718293a4b5c6d7e8f90123456789abc mft_small warm perfview 160
expect_exit 0 pd ingest "$B/7"
refused 2 "no tool 'samply' in mft_small/warm of commit c3d4e5f60718 (the commit has perfview)" pd compare a1b2c3d c3d4e5f --scenario mft_small --tool samply
# A name that is no stored sha prefix wants git.
refused 2 "'HEAD~1' is not a stored sha prefix; a name such as HEAD~1 needs --repo DIR" pd compare HEAD~1 b2c3d4e --scenario mft_small --tool perfview
expect_exit 2 pd compare a1b2c3d ffff --scenario mft_small --tool perfview
expect_grep "no stored runs of commit 'ffff' in scenario mft_small" "$T/err"
# What exists still works, in the runbook's spellings of a cache state.
expect_exit 0 pd compare a1b2c3d b2c3d4e --scenario mft_small --cache Warm --tool perfview
expect_exit 0 pd trend --scenario mft_large --cache ColdStart
expect_exit 0 pd runs --scenario mft_large --cache COLD
expect_lines 3 "$T/out"
finish
