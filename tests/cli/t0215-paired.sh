#!/bin/sh
# --paired (statistics.md, "Several runs per side"): three pairs of runs
# recorded A B A B on a machine whose speed moved from pair to pair (x1,
# x1.3, x0.8), the candidate's work 10 % slower within every pair. The
# paired test sees the 10 % (the pairs' differences are all ln 1.1); the
# unpaired one sees runs that vary by 25 % and cannot tell. Counts by hand.
. "$(dirname "$0")/lib.sh"
i=1
for f in 100 130 80; do
	printf 'main;work %d\nmain;other %d\n' $((100 * f)) $((50 * f)) >"$T/a$i.folded"
	printf 'main;work %d\nmain;other %d\n' $((110 * f)) $((50 * f)) >"$T/b$i.folded"
	i=$((i + 1))
done
set -- -b "$T/a1.folded" -b "$T/a2.folded" -b "$T/a3.folded" \
	-c "$T/b1.folded" -c "$T/b2.folded" -c "$T/b3.folded"
expect_exit 1 pd --sample-weight 1 --paired -f json "$@"
if python3 - "$T/out" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
assert d["dispersion"]["method"] == "paired-t", d["dispersion"]
w = [f for f in d["functions"] if f["function"] == "work"][0]["self"]
assert w["status"] == "regressed", w
# every pair's difference is ln(1.1): the ratio is 1.1 exactly
assert abs(w["ratio"] - 1.1) < 1e-3, w
o = [f for f in d["functions"] if f["function"] == "other"][0]["self"]
assert o["status"] not in ("regressed", "improved"), o
PY
then ok; else not_ok "paired: work +10 % not found"; fi
expect_exit 0 pd --sample-weight 1 -f json "$@"
if python3 - "$T/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["dispersion"]["method"] == "moderated-t", d["dispersion"]
w = [f for f in d["functions"] if f["function"] == "work"][0]["self"]
assert w["status"] == "inconclusive", w
PY
then ok; else not_ok "unpaired: runs varying by 25 % should not resolve 10 %"; fi
# unequal sides: said, and compared unpaired
expect_exit 0 pd --sample-weight 1 --paired -b "$T/a1.folded" -b "$T/a2.folded" \
	-c "$T/b1.folded" -c "$T/b2.folded" -c "$T/b3.folded"
expect_grep "paired needs as many runs on each side (2 and 3)" "$T/err"
# Three runs a side, two functions: work +20 % in every run (runs at
# x1, x1.05, x0.97), other the same samples on both sides. other's level
# is work's; its own time did not move, so it is judged as it is, not
# "improved -16.7 %" beyond work.
i=1
for f in 100 105 97; do
	printf 'main;work %d\nmain;other %d\n' $((100 * f)) $((50 * f)) >"$T/ra$i.folded"
	printf 'main;work %d\nmain;other %d\n' $((120 * f)) $((50 * f)) >"$T/rb$i.folded"
	i=$((i + 1))
done
expect_exit 1 pd --sample-weight 1 -f json -b "$T/ra1.folded" -b "$T/ra2.folded" -b "$T/ra3.folded" \
	-c "$T/rb1.folded" -c "$T/rb2.folded" -c "$T/rb3.folded"
if python3 - "$T/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: x["self"] for x in d["functions"]}
assert f["work"]["status"] == "regressed" and abs(f["work"]["ratio"] - 1.2) < 0.01, f["work"]
assert f["other"]["status"] not in ("regressed", "improved"), f["other"]
PY
then ok; else not_ok "runs, two functions: the steady one called changed"; fi
finish
