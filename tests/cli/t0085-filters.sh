#!/bin/sh
# --focus, --ignore and --hide keep, drop and take out frames as pprof's
# options of the same names do; checked on a folded profile counted by
# hand, on both sides of a diff, and for a bad expression.
. "$(dirname "$0")/lib.sh"
printf 'main;parse;read 10\nmain;parse;lex 20\nmain;render 30\nmain;render;malloc 5\nidle 7\n' >"$T/f.folded"

# filtered ARGS EXPECTED-TOTAL EXPECTED-FUNCTIONS (name:self:total ...)
filtered() {
	f_total=$1 f_want=$2
	shift 2
	expect_exit 0 pd show -f json --sample-weight 1 "$@" "$T/f.folded"
	if python3 - "$T/out" "$f_total" "$f_want" <<'PY'; then ok; else not_ok "show $*"; fi
import json, sys
d = json.load(open(sys.argv[1]))
got = sorted("%s:%g:%g" % (x["function"], x["self"], x["total"]) for x in d["functions"])
assert d["profile"]["total"] == float(sys.argv[2]), d["profile"]["total"]
assert got == sorted(sys.argv[3].split()), got
PY
}
filtered 72 "idle:7:7 lex:20:20 main:0:65 malloc:5:5 parse:0:30 read:10:10 render:30:35"
# samples with parse on the stack: read 10 + lex 20
filtered 30 "lex:20:20 main:0:30 parse:0:30 read:10:10" --focus '^parse$'
expect_grep "--focus ^parse\$: 41.7 % of the weight kept" "$T/err"
# without the samples that pass through render: 72 - 30 - 5
filtered 37 "idle:7:7 lex:20:20 main:0:30 parse:0:30 read:10:10" --ignore '^render$'
# parse taken out of the stacks: its callees hang under main, nothing lost
filtered 72 "idle:7:7 lex:20:20 main:0:65 malloc:5:5 read:10:10 render:30:35" --hide '^parse$'
# both: main's 65 less malloc's 5
filtered 60 "lex:20:20 main:0:60 parse:0:30 read:10:10 render:30:30" --focus main --ignore malloc

# In a diff both sides are filtered alike: render doubles, parse does not.
printf 'main;parse;read 1000\nmain;render 1000\n' >"$T/a.folded"
printf 'main;parse;read 1000\nmain;render 2000\n' >"$T/b.folded"
expect_exit 1 pd --sample-weight 1 "$T/a.folded" "$T/b.folded"
expect_exit 0 pd --sample-weight 1 --ignore render -f json "$T/a.folded" "$T/b.folded"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "diff --ignore"; fi
import json, sys
d = json.load(open(sys.argv[1]))
assert (d["total"]["baseline_samples"], d["total"]["candidate_samples"]) == (1000, 1000), d["total"]
assert "render" not in {x["function"] for x in d["functions"]}
PY
expect_exit 2 pd --focus nothing-matches "$T/a.folded" "$T/b.folded"
expect_grep "no samples left after filtering" "$T/err"
expect_exit 2 pd --hide '(' "$T/a.folded" "$T/b.folded"
expect_lines 1 "$T/err"
expect_grep "--hide" "$T/err"
finish
