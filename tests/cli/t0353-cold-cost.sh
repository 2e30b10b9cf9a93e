#!/bin/sh
# The cold-cache cost of a function (docs/cli.md, "Cold against warm"):
# its cold self time less its warm one in the same build, and how that
# changed between the builds, judged (docs/statistics.md, "Cold-cache
# cost").
. "$PD_ROOT/tests/cli/lib.sh"

run() { # DIR NAME WORK PARSE READ
	printf 'main;work %s\nmain;parse %s\nmain;read_file %s\n' "$3" "$4" "$5" \
		>"$1/profiles/$2.folded"
}
side() { # DIR SHA
	mkdir -p "$1/profiles"
	printf '{"git_sha": "%s", "scenario": "scan"}\n' "$2" >"$1/build_meta.json"
}

# read_file: warm 100 in both builds, cold 400 -> 900: its cold-cache
# cost is 300 -> 800 samples, +500 (by hand); work and parse are alike
# cold and warm in both builds, so no shift is taken out.
side "$T/a" 1111111
side "$T/b" 2222222
run "$T/a" run-warm 1000 520 100
run "$T/a" run-cold 1000 520 400
run "$T/b" run-warm 1000 520 100
run "$T/b" run-cold 1000 520 900
expect_exit 1 pd "$T/a" "$T/b"
expect_grep "^cold cache only (regressed cold, warm held): read_file +125.0 % (folded)$" "$T/out"
expect_grep "^cold-cache cost regressed: read_file +500 samples (cold less warm self time 300 -> 800 samples, 95 % CI " "$T/out"
expect_no_grep "cold-cache cost .*: work" "$T/out"
expect_no_grep "cold-cache cost .*: parse" "$T/out"
# The interval comes from each series' own: the cold read_file's ratio
# interval printed in its table gives the log ratio's standard error,
# the weight's change the warm side adds nothing to (100 -> 100 adds
# its own small part): half-width about 1.96 x se x sqrt((400^2 +
# 900^2) / 2), within a tenth.
python3 - "$T/out" <<'PY' && ok || not_ok "cold cost interval from the series' own"
import math, re, sys
text = open(sys.argv[1]).read()
lo, hi = map(float, re.search(r"95 % CI ([\d.]+) \.\. ([\d.]+)", text).groups())
m = re.search(r"regressed +self +\+125\.0 % +[\d.]+ \(([\d.]+)…([\d.]+)\)", text)
se = math.log(float(m.group(2)) / float(m.group(1))) / (2 * 1.96)
want = 1.96 * se * math.sqrt((400 ** 2 + 900 ** 2) / 2)
half = (hi - lo) / 2
assert abs(lo + hi - 1000) < 0.02, (lo, hi)
assert abs(half / want - 1) < 0.1, (half, want)
PY
expect_exit 1 pd "$T/a" "$T/b" -f json
python3 - "$T/out" <<'PY' && ok || not_ok "cold cost json"
import json, sys
d = json.load(open(sys.argv[1]))
c = d["cold_cost"]
assert c["tested"] == 3, c
(x,) = c["changed"]
assert (x["function"], x["tool"], x["status"], x["unit"]) == \
    ("read_file", "folded", "regressed", "samples"), x
assert (x["base"], x["cand"], x["delta"]) == (300, 800, 500), x
assert x["ci_low"] > 0 and x["q"] <= 0.05 and x["p"] <= x["q"], x
PY
expect_exit 1 pd "$T/a" "$T/b" -f md
expect_grep "^Cold-cache cost (cold less warm self time) changed: <code>read&#95;file</code> +500 samples, 300 → 800 (folded)$" "$T/out"

# Warm and cold both +500: the work got slower, the cold cache costs the
# same (300 -> 300): no cold-cache line, and no "cold only" either.
side "$T/c" 3333333
run "$T/c" run-warm 1000 520 600
run "$T/c" run-cold 1000 520 900
expect_exit 1 pd "$T/a" "$T/c"
expect_no_grep "^cold-cache cost" "$T/out"
expect_no_grep "^cold cache only" "$T/out"
expect_exit 1 pd "$T/a" "$T/c" -f json
python3 - "$T/out" <<'PY' && ok || not_ok "same cold cost json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["cold_cost"] == {"tested": 3, "changed": []}, d["cold_cost"]
PY

# Three runs a side (the moderated t, degrees of freedom from the runs):
# the cold cost of read_file goes 300 -> 450 with runs a few samples
# apart; the warm runs hold.
side "$T/d" 4444444
side "$T/e" 5555555
for r in 1 2 3; do
	run "$T/d" "run$r-warm" $((1000 + r)) $((520 - r)) $((100 + r))
	run "$T/d" "run$r-cold" $((1000 - r)) $((520 + r)) $((400 - r))
	run "$T/e" "run$r-warm" $((1000 - r)) $((520 + r)) $((100 - r))
	run "$T/e" "run$r-cold" $((1000 + r)) $((520 - r)) $((550 + r))
done
expect_exit 1 pd "$T/d" "$T/e" -f json
python3 - "$T/out" <<'PY' && ok || not_ok "cold cost of three runs a side"
import json, sys
d = json.load(open(sys.argv[1]))
(x,) = d["cold_cost"]["changed"]
# means: cold 398 -> 552, warm 102 -> 98: cost 296 -> 454
assert x["function"] == "read_file" and x["status"] == "regressed", x
assert abs(x["base"] - 296) < 1e-9 and abs(x["cand"] - 454) < 1e-9, x
PY

# Identical builds: nothing changed.
expect_exit 0 pd "$T/a" "$T/a"
expect_no_grep "^cold-cache cost" "$T/out"

# A series without its warm twin has no cold-cache cost.
rm "$T/b/profiles/run-warm.folded" "$T/a/profiles/run-warm.folded"
expect_exit 1 pd "$T/a" "$T/b"
expect_no_grep "^cold-cache cost" "$T/out"

test "$failed" -eq 0
