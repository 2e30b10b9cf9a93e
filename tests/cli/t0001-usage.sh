#!/bin/sh
# Usage errors, help, version, typo suggestions: exit 2 with one line.
. "$(dirname "$0")/lib.sh"
D=$PD_ROOT/fixtures/demo

expect_exit 2 pd
expect_grep "usage: perfdiff" "$T/out"
expect_exit 0 pd --help
expect_grep "Commands:" "$T/out"
expect_exit 0 pd help diff
expect_grep "threshold PCT" "$T/out"
expect_grep "min-impact PCT .* as % of the baseline" "$T/out"
# help texts are printed as they are: no printf escapes left in them
for c in bundle check compare convert culprit diff ingest runs show trend; do
	expect_exit 0 pd help $c
	expect_no_grep "%%" "$T/out"
	# a flag too long for its column has its text on the next line,
	# indented and with its spaces: no text line starts at column 0
	# but the usage lines, the prose and the section names
	expect_no_grep "^[a-z][A-Za-z/]*[:(][A-Za-z]" "$T/out"
	expect_no_grep "^  -.\{78,\}" "$T/out"
	expect_no_grep "^ \{24\}.\{56,\}" "$T/out"
done
expect_exit 0 pd help show
expect_grep "^                        what a folded file's numbers are" "$T/out"
expect_exit 0 pd version
expect_grep "^perfdiff 0\." "$T/out"
expect_exit 2 pd dif
expect_grep "did you mean 'diff'" "$T/err"
expect_lines 1 "$T/err"
expect_exit 2 pd "$D/base.perf.txt.gz"
expect_grep "diff wants BASELINE CANDIDATE (got 1 operand); see perfdiff help diff" "$T/err"
# Every command's operands are counted against the command table, one
# message shape; commands without options still answer -h.
expect_exit 2 pd show
expect_grep "show wants PROFILE (got 0 operands)" "$T/err"
expect_exit 2 pd convert a b
expect_grep "convert wants INPUT (got 2 operands)" "$T/err"
expect_exit 2 pd runs x
expect_grep "runs takes no operands (got 1); see perfdiff help runs" "$T/err"
expect_exit 2 pd version x
expect_grep "version takes no operands" "$T/err"
expect_exit 2 pd help diff x
expect_grep "help wants \[COMMAND\] (got 2 operands)" "$T/err"
expect_exit 2 pd ingest
expect_grep "ingest wants PATH... (got 0 operands)" "$T/err"
expect_exit 2 pd bundle init
expect_grep "bundle wants init DIR (got 1 operand)" "$T/err"
expect_exit 128 pd check x
expect_grep "check wants BASELINE CANDIDATE (got 1 operand)" "$T/err"
for c in version completion help; do
	expect_exit 0 pd help $c
	expect_grep "^usage: perfdiff $c" "$T/out"
done
expect_exit 2 pd --bogus "$D/base.perf.txt.gz" "$D/cand.perf.txt.gz"
expect_grep "unknown option --bogus" "$T/err"
expect_lines 1 "$T/err"
expect_exit 2 pd --threshold abc "$D/base.perf.txt.gz" "$D/cand.perf.txt.gz"
expect_grep "threshold wants a number" "$T/err"
expect_exit 2 pd -f pdf "$D/base.perf.txt.gz" "$D/cand.perf.txt.gz"
expect_grep "unknown output format" "$T/err"
expect_exit 2 pd --from jfr "$D/base.perf.txt.gz" "$D/cand.perf.txt.gz"
expect_grep "unknown format 'jfr'" "$T/err"
# a text file forced to be pprof: the protobuf reader says where it broke
expect_exit 2 pd --from pprof "$D/base.perf.txt.gz" "$D/cand.perf.txt.gz"
expect_grep "base.perf.txt.gz: byte 0: pprof: " "$T/err"
expect_exit 2 pd --threshold
expect_grep "needs a value" "$T/err"
# a mistyped option gets the nearest one, in every command
expect_exit 2 pd --thresold 5 "$D/base.perf.txt.gz" "$D/cand.perf.txt.gz"
expect_grep "unknown option --thresold; did you mean --threshold? (perfdiff help diff)" "$T/err"
expect_lines 1 "$T/err"
expect_exit 2 pd show --tpo 3 "$D/base.perf.txt.gz"
expect_no_grep "did you mean" "$T/err"
expect_exit 2 pd trend --scenaro x
expect_grep "did you mean --scenario?" "$T/err"
# -V is --version
expect_exit 0 pd -V
expect_grep "^perfdiff [0-9]" "$T/out"
# show has no verdict to put in md, html or xlsx: refused, not text
for f in md html xlsx; do
	expect_exit 2 pd show -f $f "$D/base.perf.txt.gz"
	expect_grep "show writes text, json or folded" "$T/err"
done
finish
