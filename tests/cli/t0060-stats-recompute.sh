#!/bin/sh
# perfdiff's one-pair statistics recomputed from the counts in its JSON by
# an independent implementation (tests/tools/recompute_stats.py): the
# program's shift and the pair's dispersion, each function's reference
# (the other functions' shift), ratios, intervals, p and q values, MDEs
# and verdicts.
. "$(dirname "$0")/lib.sh"
D=$PD_ROOT/fixtures/demo
S=$PD_ROOT/fixtures/folded/small.folded
check() {
	pd -f json "$@" >"$T/d.json" 2>/dev/null
	if python3 "$PD_ROOT/tests/tools/recompute_stats.py" "$T/d.json" >"$T/py" 2>&1; then ok; else
		not_ok "recompute $*: $(tail -3 "$T/py")"
	fi
}
# The demo: 4 well-sampled functions, 3 alike; parse_record judged beyond
# the others' shift.
check "$D/base.perf.txt.gz" "$D/cand.perf.txt.gz"
check --share "$D/base.perf.txt.gz" "$D/cand.perf.txt.gz"
check --dispersion 1 "$D/base.perf.txt.gz" "$D/cand.perf.txt.gz"
check --run-cv 0 --dispersion 1 "$D/base.perf.txt.gz" "$D/cand.perf.txt.gz"
# One well-sampled function (leaf, 20 a side): judged against no shift,
# the others against it; small counts get the conditional binomial test.
check --sample-weight 1 "$S" "$S"
check --run-cv 0 --sample-weight 1 "$S" "$S"
# Shares take no shift and no whole-program variation: with Poisson alone
# (dispersion 1, no run-to-run term) the binomial test's counts are whole,
# and the script sums it term by term too.
check --share --run-cv 0 --dispersion 1 --sample-weight 1 "$S" "$S"
# Tested against the threshold: q over those p values, and the adjusted
# intervals decide.
check --treat "$D/base.perf.txt.gz" "$D/cand.perf.txt.gz"
check --treat --run-cv 0 --dispersion 1 "$D/base.perf.txt.gz" "$D/cand.perf.txt.gz"
# Two functions, a: 10000 -> 9000, b: 10000 -> 10000. Each one's reference
# is the other alone; b's own time did not move, so it is judged against
# no shift, a against b.
printf 'main;a 10000\nmain;b 10000\n' >"$T/a2.folded"
printf 'main;a 9000\nmain;b 10000\n' >"$T/b2.folded"
check --sample-weight 1 "$T/a2.folded" "$T/b2.folded"
# Programs of n functions (f_i of int(60 x 1.07^i) samples, a few percent
# of scatter, all +20 % in the candidate and f3 x 1.5 beyond): 7 and more
# tell the pair's own dispersion; beyond 64 each function's reference is
# the whole shift less its own vote.
gen() {
	awk -v n="$1" -v m="$2" -v k="$3" 'BEGIN { for (i = 0; i < n; i++) {
		c = int(60 * 1.07 ^ i); x = i == 3 ? 1.5 : 1
		printf "main;f%d %d\n", i, int(c * m * x) + int((i * k % 21 - 10) * c / 200) } }'
}
for n in 7 80; do
	gen $n 1 37 >"$T/a$n.folded"
	gen $n 1.2 53 >"$T/b$n.folded"
	check --sample-weight 1 "$T/a$n.folded" "$T/b$n.folded"
	check --treat --dispersion 1 --sample-weight 1 "$T/a$n.folded" "$T/b$n.folded"
done
if corpus_part "the corpus pairs"; then
	check --dispersion 1 "$PD_CORPUS/diff-folded/inferno-input-before.txt" "$PD_CORPUS/diff-folded/inferno-input-after.txt"
	check --treat --dispersion 1 "$PD_CORPUS/diff-folded/inferno-input-before.txt" "$PD_CORPUS/diff-folded/inferno-input-after.txt"
	check "$PD_CORPUS/folded/FlameGraph-perf-vertx-stacks-01-collapsed-all.txt" "$PD_CORPUS/folded/inferno-perf-vertx-collapsed-all-unsorted.txt"
fi
finish
