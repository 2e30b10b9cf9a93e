#!/bin/sh
# -f folded is difffolded-compatible: checked against inferno-diff-folded's
# expected outputs in the corpus (sorted, since both tools use hash order).
. "$(dirname "$0")/lib.sh"
need_corpus
DF=$PD_CORPUS/diff-folded

expect_exit 0 pd -f folded --from folded "$DF/inferno-input-before.txt" "$DF/inferno-input-after.txt"
sort "$T/out" >"$T/ours"
sort "$DF/inferno-diff-folded-output-default.txt" >"$T/theirs"
if diff -u "$T/theirs" "$T/ours" >&2; then ok; else not_ok "default diff-folded"; fi

# inferno truncates fractional counts (the Perl tool keeps them): compare
# after truncating ours.
expect_exit 0 pd -f folded --from folded "$DF/inferno-input-before_fractionals.txt" "$DF/inferno-input-after.txt"
awk '{ n = NF; $(n-1) = int($(n-1)); $n = int($n); print }' "$T/out" | sort >"$T/ours"
sort "$DF/inferno-diff-folded-output-fractionals.txt" >"$T/theirs"
if diff -u "$T/theirs" "$T/ours" >&2; then ok; else not_ok "fractional diff-folded"; fi

# A line without a count is skipped with one warning naming its line.
expect_exit 0 pd -f folded --from folded "$DF/inferno-input-bad_before.txt" "$DF/inferno-input-after.txt"
expect_grep "skipped 1 malformed line, first at .*bad_before.txt:" "$T/err"

# Counts of a few stacks share small divisors by chance (112 and 116 share
# 4): that is no sampling period, and the counts stay 228 (they were
# quartered to 57). A large divisor shared by periods stays one.
printf 'main;a 112\nmain;b 116\n' >"$T/few.folded"
expect_exit 0 pd show -f json "$T/few.folded"
expect_grep '"samples":[[:space:]]*228,' "$T/out"
printf 'main;a 2002002\nmain;b 1001001\n' >"$T/period.folded"
expect_exit 0 pd show -f json "$T/period.folded"
expect_grep '"samples":[[:space:]]*3,' "$T/out"
# inferno's collapse of a cycles recording sums perf's periods: 80.6 M
# "samples" for the 46 samples perf script shows (counted there, one
# header line a sample). Read as samples of the median stack's weight,
# the count errs low but near: between a third and the whole of them.
F=$PD_CORPUS/folded/inferno-cpp-stacks-std-function-collapsed.txt
S=$PD_CORPUS/perf-script/inferno-cpp-stacks-std-function.txt
if [ -f "$F" ] && [ -f "$S" ]; then
	n=$(grep -c ' cycles:' "$S")
	expect_exit 0 pd show -f json "$F"
	expect_grep "more than a recording holds" "$T/err"
	python3 - "$T/out" "$n" <<'PY' && ok || not_ok "summed periods read as $(grep '"samples"' "$T/out") samples, perf script has $n"
import json, sys
s, n = json.load(open(sys.argv[1]))["profile"]["samples"], int(sys.argv[2])
assert n == 46 and n / 3 <= s <= n, (s, n)
PY
fi
finish
