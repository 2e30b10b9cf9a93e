#!/bin/sh
# Two profiles of different programs (or one side without symbols) share
# no function of weight: every function is "added" or "removed", which is
# no finding, and "regressed: zeta added" (exit 1) was a confident wrong
# answer. The functions both have (here "shared", 5000 and 9000 samples)
# hold under half of either side's time (5000 / 705000 = 0.7 %, 9000 /
# 779000 = 1.2 %), so there is no verdict: inconclusive, exit 0, the
# reason in the headline and in the JSON's no_verdict (docs/cli.md). One
# program's profiles with a changed function keep their verdict.
. "$(dirname "$0")/lib.sh"
printf 'main;alpha;beta 400000\nmain;alpha;gamma 300000\nmain;shared 5000\n' \
	>"$T/a.folded"
printf 'start;delta;eps 350000\nstart;zeta 420000\nstart;shared 9000\n' \
	>"$T/b.folded"
expect_exit 0 pd "$T/a.folded" "$T/b.folded"
expect_grep "^inconclusive: no verdict (the profiles have little of their time in common" "$T/out"
expect_exit 0 pd -f json "$T/a.folded" "$T/b.folded"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "json no_verdict"; fi
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verdict"] == "inconclusive", d["verdict"]
assert "common functions" in d["no_verdict"], d["no_verdict"]
PY
# One program: a verdict as usual (beta 400000 -> 800000 is real).
printf 'main;alpha;beta 800000\nmain;alpha;gamma 300000\nmain;shared 5000\n' \
	>"$T/c.folded"
expect_exit 1 pd --sample-weight 1 "$T/a.folded" "$T/c.folded"
expect_grep "^regressed:.*beta" "$T/out"
finish
