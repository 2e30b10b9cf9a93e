#!/bin/sh
# Exit status like diff(1), and one-line errors naming file and place.
. "$(dirname "$0")/lib.sh"
D=$PD_ROOT/fixtures/demo

# A real regression (parse_record does 40 % more work): exit 1.
expect_exit 1 pd "$D/base.perf.txt.gz" "$D/cand.perf.txt.gz"
expect_grep "^regressed" "$T/out"
expect_grep "parse_record \[workload\]" "$T/out"
# The same profile on both sides: nothing changed, exit 0.
expect_exit 0 pd "$D/base.perf.txt.gz" "$D/base.perf.txt.gz"
expect_no_grep "^regressed" "$T/out"
# The other way round is an improvement: exit 0.
expect_exit 0 pd "$D/cand.perf.txt.gz" "$D/base.perf.txt.gz"
expect_grep "^improved" "$T/out"

# Errors: exit 2, one line on stderr that names the file, nothing on stdout.
check_err() {
	expect_exit 2 pd "$@"
	expect_lines 1 "$T/err"
	expect_lines 0 "$T/out"
}
check_err "$T/missing.txt" "$D/base.perf.txt.gz"
expect_grep "missing.txt: cannot open" "$T/err"
check_err "$D/base.perf.txt.gz" "$T/missing.txt"
expect_grep "missing.txt: cannot open" "$T/err"
: >"$T/empty.txt"
check_err "$T/empty.txt" "$D/base.perf.txt.gz"
expect_grep "empty.txt: empty file" "$T/err"
printf '\177ELF\002\001\001\000\000\000\000\000' >"$T/bin"
check_err "$T/bin" "$D/base.perf.txt.gz"
expect_grep "bin: not a profile format perfdiff knows: an ELF binary" "$T/err"
printf '{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"evented","unit":"none","events":[{"type":"O","frame":0,"at":1}' >"$T/trunc.json"
check_err "$T/trunc.json" "$D/base.perf.txt.gz"
expect_grep "trunc.json: byte [0-9]* at \$.profiles\[0\].events.*truncated JSON" "$T/err"
printf '{"shared":{"frames":[]},"profiles":[{"type":"evented","unit":"none","events":[{"type":"X","frame":0,"at":1}]}]}' >"$T/badtype.json"
check_err "$T/badtype.json" "$D/base.perf.txt.gz"
expect_grep 'badtype.json: \$.profiles\[0\].events\[0\].type: event type' "$T/err"
printf '{"nodes":[],"samples":[],"timeDeltas":[]}' >"$T/cpu.json"
check_err "$T/cpu.json" "$D/base.perf.txt.gz"
expect_grep 'cpu.json: \$.nodes: no nodes' "$T/err"
printf 'hello\nworld\n' >"$T/text.txt"
check_err "$T/text.txt" "$D/base.perf.txt.gz"
expect_grep "text.txt:1: not a profile format" "$T/err"
# Filters that leave nothing are an empty profile, not a crash.
check_err --thread nosuchthread "$D/base.perf.txt.gz" "$D/base.perf.txt.gz"
expect_grep "no samples left after filtering" "$T/err"
# A directory.
check_err "$T" "$D/base.perf.txt.gz"
# Standard input serves one side, not both.
if pd "$D/base.perf.txt.gz" - <"$D/cand.perf.txt.gz" >"$T/out" 2>"$T/err"; then
	not_ok "stdin candidate: expected a regression"
else
	[ $? -eq 1 ] && ok || not_ok "stdin candidate: $(cat "$T/err")"
fi
check_err - -
expect_grep "only one profile can be standard input" "$T/err"
finish
