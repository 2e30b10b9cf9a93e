#!/bin/sh
# perfdiff peek: a function's callers (its total under each) and callees
# (its own time and each callee's total under it), both sides, counted
# here by hand from the stacks; recursion counts the outermost call once;
# JSON has the same numbers; no match and bad patterns are errors.
. "$(dirname "$0")/lib.sh"
cat >"$T/a.folded" <<'X'
main;parse;hash 30
main;parse 50
main;load;parse;hash 10
main;load;parse 10
main;walk;walk;walk 40
main;idle 100
X
cat >"$T/b.folded" <<'X'
main;parse;hash 30
main;parse 90
main;load;parse;hash 10
main;load;parse 20
main;walk;walk;walk 44
main;idle 100
X
expect_exit 0 pd peek --sample-weight 1 '^parse$' "$T/a.folded" "$T/b.folded"
# parse under main: 30 + 50 -> 30 + 90; under load: 10 + 10 -> 10 + 20
expect_grep '^ *80 *120 *+50.0 %  main$' "$T/out"
expect_grep '^ *20 *30 *+50.0 %  load$' "$T/out"
# its own time 50 + 10 -> 90 + 20; hash under it 30 + 10 both sides
expect_grep '^ *60 *110 *+83.3 %  (its own time)$' "$T/out"
expect_grep '^ *40 *40 *+0.0 %  hash$' "$T/out"
expect_grep '^peek parse: self +83.3 % regressed' "$T/out"
expect_no_grep 'idle' "$T/out"
# recursion: walk's total under main is each stack once (40 -> 44), and
# its callees are itself only through its own time
expect_exit 0 pd peek --sample-weight 1 -f json '^walk' "$T/a.folded" "$T/b.folded"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "peek JSON and recursion"; fi
import json, sys
d = json.load(open(sys.argv[1]))["peek"]
assert [x["function"] for x in d] == ["walk"], d
w = d[0]
assert [(c["function"], c["baseline"], c["candidate"]) for c in w["callers"]] == [("main", 40, 44)], w["callers"]
assert [(c.get("kind"), c["baseline"], c["candidate"]) for c in w["callees"]] == [("self", 40, 44)], w["callees"]
assert w["callees"][0]["baseline_samples"] == 40
PY
# several runs a side: the mean of the runs (-b a -b a against -c b -c a)
expect_exit 0 pd peek --sample-weight 1 -b "$T/a.folded" -b "$T/a.folded" -c "$T/b.folded" -c "$T/a.folded" '^parse$'
expect_grep '^ *80 *100 *+25.0 %  main$' "$T/out"
expect_exit 2 pd peek 'nosuchfunction' "$T/a.folded" "$T/b.folded"
expect_grep 'no function matches nosuchfunction' "$T/err"
expect_exit 2 pd peek '(' "$T/a.folded" "$T/b.folded"
expect_lines 1 "$T/err"
expect_exit 2 pd peek -f html 'parse' "$T/a.folded" "$T/b.folded"
expect_grep '-f html: peek writes text or json' "$T/err"
expect_exit 2 pd peek 'parse' "$T/a.folded"
expect_lines 1 "$T/err"
# What peek's help lists is what it does: no table options it ignores.
D=$PD_ROOT/fixtures/demo
for o in "--top 3" "--sort self" "--color always"; do
	# shellcheck disable=SC2086
	expect_exit 2 pd peek parse_record "$D/base.perf.txt.gz" "$D/cand.perf.txt.gz" $o
	expect_grep "unknown option ${o%% *}" "$T/err"
done
expect_exit 2 pd peek parse_record "$D/base.perf.txt.gz" "$D/cand.perf.txt.gz" -f md
expect_exit 0 pd help peek
expect_grep "text (default), json$" "$T/out"
expect_no_grep "[-][-]top" "$T/out"
finish
