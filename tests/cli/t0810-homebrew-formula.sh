#!/bin/sh
# The Homebrew formula (scripts/homebrew/Formula/perfdiff.rb): Ruby reads
# it, and its test block, run against the perfdiff built here
# (tests/tools/brew_test_block.rb stands in for Homebrew), finds the
# regression in the two folded files it writes. A second of work.
. "$(dirname "$0")/lib.sh"
command -v ruby >/dev/null || { echo "ruby not installed: skipped"; exit 77; }
F=$PD_ROOT/scripts/homebrew/Formula/perfdiff.rb
expect_exit 0 ruby -c "$F"
expect_grep "Syntax OK" "$T/out"
expect_exit 0 ruby "$PD_ROOT/tests/tools/brew_test_block.rb" "$F" \
	"$(cd "$(dirname "$PERFDIFF")" && pwd)"
expect_grep "test block passed" "$T/out"
# the stand-in fails when the block does: a formula whose test asks for
# the wrong verdict
sed 's/(\/\^regressed: parse/(\/^improved: parse/' "$F" >"$T/perfdiff.rb"
expect_exit 1 ruby "$PD_ROOT/tests/tools/brew_test_block.rb" "$T/perfdiff.rb" \
	"$(cd "$(dirname "$PERFDIFF")" && pwd)"
expect_grep "not found in" "$T/err"
finish
