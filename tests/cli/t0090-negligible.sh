#!/bin/sh
# A real change beyond the threshold that is too small a part of the whole
# is "negligible", not "same", and no reason for exit 1: small doubles
# (2000 -> 4000 samples) but is 0.2 % of the total, under the 0.5 % minimum
# impact. With --min-impact 0.1 it is a regression.
#
# By hand: the reference of small is big alone (1000000 samples a side,
# log ratio 0), so small is judged against no shift, with big's variance
# 1.5 (2 / 1000000.5) + 2 (0.02)^2 = 0.000803 added. L = ln(4000.5 / 2000.5)
# = 0.6930; its variance 1.5 (1/2000.5 + 1/4000.5) + 2 (0.02)^2 + 0.000803
# = 0.002728, se 0.0522, t = 13.3 on 6 degrees of freedom:
# p = 1 - t / sqrt(6 + t^2) (1 + x/2 + 3x^2/8), x = 6 / (6 + t^2), = 1.1e-5;
# q = 3 p (three hypotheses: the total, big, small) = 3.4e-5, far past any
# alpha; the interval's low end exp(0.6930 - 2.447 se) = 1.76. The JSON's
# every number is recomputed by tests/tools/recompute_stats.py.
. "$(dirname "$0")/lib.sh"
printf 'main;big 1000000\nmain;small 2000\n' >"$T/a.folded"
printf 'main;big 1000000\nmain;small 4000\n' >"$T/b.folded"
expect_exit 0 pd --sample-weight 1 -f json "$T/a.folded" "$T/b.folded"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "negligible"; fi
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: x for x in d["functions"]}
s = f["small"]["self"]
assert s["status"] == "negligible", s
assert s["q"] < 1e-4 and s["ci_low"] > 1.7 and s["impact_pct"] < 0.5, s
assert d["verdict"] != "regressed", d["verdict"]
PY
if python3 "$PD_ROOT/tests/tools/recompute_stats.py" "$T/out" >"$T/py" 2>&1; then ok; else
	not_ok "recompute: $(tail -3 "$T/py")"
fi
expect_exit 1 pd --sample-weight 1 --min-impact 0.1 "$T/a.folded" "$T/b.folded"
expect_grep "regressed.*small" "$T/out"
finish
