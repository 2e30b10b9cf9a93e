#!/bin/sh
# perfdiff's ratios, intervals, p and q values, recomputed from the counts
# in its JSON by an independent implementation (tests/tools/recompute_stats.py).
. "$(dirname "$0")/lib.sh"
D=$PD_ROOT/fixtures/demo
check() {
	pd -f json "$@" >"$T/d.json" 2>/dev/null
	if python3 "$PD_ROOT/tests/tools/recompute_stats.py" "$T/d.json" >"$T/py" 2>&1; then ok; else
		not_ok "recompute $*: $(tail -3 "$T/py")"
	fi
}
check "$D/base.perf.txt.gz" "$D/cand.perf.txt.gz"
check --share "$D/base.perf.txt.gz" "$D/cand.perf.txt.gz"
check --dispersion 1 "$D/base.perf.txt.gz" "$D/cand.perf.txt.gz"
check --sample-weight 1 "$PD_ROOT/fixtures/folded/small.folded" "$PD_ROOT/fixtures/folded/small.folded"
# Poisson alone (no run-to-run term): small counts get the exact test on
# whole counts, which the script sums term by term.
check --run-cv 0 --sample-weight 1 "$PD_ROOT/fixtures/folded/small.folded" "$PD_ROOT/fixtures/folded/small.folded"
check --run-cv 0 --dispersion 1 "$D/base.perf.txt.gz" "$D/cand.perf.txt.gz"
# Tested against the threshold: q over those p values, and the adjusted
# intervals decide.
check --treat "$D/base.perf.txt.gz" "$D/cand.perf.txt.gz"
check --treat --run-cv 0 --dispersion 1 "$D/base.perf.txt.gz" "$D/cand.perf.txt.gz"
if corpus_part "the corpus pairs"; then
	check --dispersion 1 "$PD_CORPUS/diff-folded/inferno-input-before.txt" "$PD_CORPUS/diff-folded/inferno-input-after.txt"
	check --treat --dispersion 1 "$PD_CORPUS/diff-folded/inferno-input-before.txt" "$PD_CORPUS/diff-folded/inferno-input-after.txt"
	check "$PD_CORPUS/folded/FlameGraph-perf-vertx-stacks-01-collapsed-all.txt" "$PD_CORPUS/folded/inferno-perf-vertx-collapsed-all-unsorted.txt"
fi
finish
