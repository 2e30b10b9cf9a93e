#!/bin/sh
# Untrusted text reaches a terminal with what the terminal would obey made
# visible (docs/architecture.md, "Untrusted text"): C0 controls and DEL as
# \x1b, the C1 controls as UTF-8 encodes them (U+009B is a command start
# to some terminals), bidi overrides and zero-width characters as \u202e,
# invalid UTF-8 as \xff, the line and paragraph separators U+2028/U+2029
# as \u2028. In show's and diff's text, in folded output (which stays one
# stack a line), in Markdown's side lines (the perf event), in trend,
# culprit and runs (keys from build_meta.json), and in the one-line
# messages on stderr.
. "$(dirname "$0")/lib.sh"
esc=$(printf '\033')
names='main;evil%s]0;pwned\007name %d\nmain;c1\302\23331m 40\nmain;x\342\200\256gnp.exe 30\nmain;bad\377byte 20\nmain;ok 50\nmain;ls\342\200\250ps\342\200\251 10\n'
# shellcheck disable=SC2059
printf "$names" "$esc" 100 >"$T/a.folded"
# shellcheck disable=SC2059
printf "$names" "$esc" 300 >"$T/b.folded"
# control bytes but newline, UTF-8 C1 controls, bidi and zero-width
# characters, and invalid UTF-8
nocontrol() {
	if python3 - "$1" <<'PY'; then ok; else not_ok "$2: unsafe text in $1"; fi
import re, sys
data = open(sys.argv[1], "rb").read()
bad = re.findall(rb"[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\x8b-\x8f\xa8-\xae]|\xe2\x81[\xa0-\xa4\xa6-\xa9]|\xef\xbb\xbf", data)
assert not bad, bad[:5]
data.decode("utf-8")
PY
}
expect_exit 0 pd show "$T/a.folded"
nocontrol "$T/out" "show"
expect_grep 'pwned\\x07name' "$T/out"
expect_grep 'c1\\u009b31m' "$T/out"
expect_grep 'x\\u202egnp.exe' "$T/out"
# a byte that is no UTF-8 is U+FFFD in a function's name (docs/cli.md,
# "convert"): what the terminal gets is valid UTF-8, never the raw byte
expect_grep "bad$(printf '\357\277\275')byte" "$T/out"
expect_no_grep "$(printf '\377')" "$T/out"
expect_grep 'ls\\u2028ps\\u2029' "$T/out"
expect_exit 1 pd --sample-weight 1 "$T/a.folded" "$T/b.folded"
nocontrol "$T/out" "diff"
nocontrol "$T/err" "diff warnings"
# folded output: one stack a line, each escape written as text
expect_exit 1 pd --sample-weight 1 -f folded "$T/a.folded" "$T/b.folded"
nocontrol "$T/out" "folded"
expect_grep '^main;evil\\x1b\]0;pwned\\x07name 100 300$' "$T/out"
expect_grep '^main;c1\\u009b31m 40 40$' "$T/out"
expect_grep '^main;x\\u202egnp.exe 30 30$' "$T/out"
expect_grep '^main;ls\\u2028ps\\u2029 10 10$' "$T/out"
expect_lines 6 "$T/out"
# ... and read back as folded stacks (the baseline's column: two counts
# a line are a differential file, which is no profile)
sed 's/ [0-9]*$//' "$T/out" >"$T/back.folded"
expect_exit 0 pd show "$T/back.folded"
expect_grep 'evil\\x1b\]0$' "$T/out"
# a perf event name in Markdown's side lines
perf_text() { # perf_text N: N samples of one stack, a crafted event name
	i=0
	while [ "$i" -lt "$1" ]; do
		printf 'w 1 %d.0:    1001 cpu\033]0;x\007\302\233\342\200\250clock:pppH: \n\t 11 parse+0x2 (/opt/w)\n\t 12 main+0x3 (/opt/w)\n\n' "$i"
		i=$((i + 1))
	done
}
perf_text 50 >"$T/a.perf.txt"
perf_text 60 >"$T/b.perf.txt"
pd -f md "$T/a.perf.txt" "$T/b.perf.txt" >"$T/out" 2>"$T/err"
nocontrol "$T/out" "markdown"
expect_grep '^- Baseline: .*event cpu.*&#92;u009b&#92;u2028clock' "$T/out"
# a path with an escape sequence, quoted in an error message
expect_exit 2 pd show "$T/no${esc}[31mfile"
nocontrol "$T/err" "error message"
expect_lines 1 "$T/err"
expect_grep 'no.*\[31mfile' "$T/err"
# keys from build_meta.json: runs and trend
export PERFDIFF_DB="$T/h.db"
c=1
while [ "$c" -le 3 ]; do
	mkdir -p "$T/b$c/profiles"
	printf '{"git_sha": "%02dabababababababababababababababababab", "scenario": "s\\u001b[2Jx\\u202e", "cache": "warm", "commit_date": "2026-02-0%dT00:00:00Z"}\n' \
		"$c" "$c" >"$T/b$c/build_meta.json"
	cp "$T/a.folded" "$T/b$c/profiles/run.1.folded"
	c=$((c + 1))
done
expect_exit 0 pd ingest "$T/b1" "$T/b2" "$T/b3"
expect_exit 0 pd runs
nocontrol "$T/out" "runs"
expect_grep 's\\x1b\[2Jx' "$T/out"
pd trend --scenario "$(printf 's\033[2Jx\342\200\256')" >"$T/out" 2>"$T/err"
nocontrol "$T/out" "trend"
nocontrol "$T/err" "trend messages"
pd culprit --scenario "$(printf 's\033[2Jx\342\200\256')" >"$T/out" 2>"$T/err"
nocontrol "$T/out" "culprit"
nocontrol "$T/err" "culprit messages"
expect_grep 'no change point in s\\x1b\[2Jx\\u202e/warm' "$T/out"
finish
