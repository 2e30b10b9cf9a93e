#!/bin/sh
# perfdiff peek: a function's callers (its total under each) and callees
# (its own time and each callee's total under it), both sides, counted
# here by hand from the stacks; recursion counts the outermost call once;
# JSON has the same numbers; no match and bad patterns are errors.
. "$(dirname "$0")/lib.sh"
# Counts large enough that parse's own +83.3 % is shown (600 -> 1100
# samples); hash and idle did not move, so the program's shift that parse
# is judged beyond is none, and walk (10 -> 11) is too small to vote.
cat >"$T/a.folded" <<'X'
main;parse;hash 300
main;parse 500
main;load;parse;hash 100
main;load;parse 100
main;walk;walk;walk 10
main;idle 1000
X
cat >"$T/b.folded" <<'X'
main;parse;hash 300
main;parse 900
main;load;parse;hash 100
main;load;parse 200
main;walk;walk;walk 11
main;idle 1000
X
expect_exit 0 pd peek --sample-weight 1 '^parse$' "$T/a.folded" "$T/b.folded"
# parse under main: 300 + 500 -> 300 + 900; under load: 100 + 100 -> 100 + 200
expect_grep '^ *800 *1200 *+50.0 %  main$' "$T/out"
expect_grep '^ *200 *300 *+50.0 %  load$' "$T/out"
# its own time 500 + 100 -> 900 + 200; hash under it 300 + 100 both sides
expect_grep '^ *600 *1100 *+83.3 %  (its own time)$' "$T/out"
expect_grep '^ *400 *400 *+0.0 %  hash$' "$T/out"
expect_grep '^peek parse: self +83.3 % regressed' "$T/out"
expect_no_grep 'idle' "$T/out"
# recursion: walk's total under main is each stack once (10 -> 11), and
# its callees are itself only through its own time
expect_exit 0 pd peek --sample-weight 1 -f json '^walk' "$T/a.folded" "$T/b.folded"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "peek JSON and recursion"; fi
import json, sys
d = json.load(open(sys.argv[1]))["peek"]
assert [x["function"] for x in d] == ["walk"], d
w = d[0]
assert [(c["function"], c["baseline"], c["candidate"]) for c in w["callers"]] == [("main", 10, 11)], w["callers"]
assert [(c.get("kind"), c["baseline"], c["candidate"]) for c in w["callees"]] == [("self", 10, 11)], w["callees"]
assert w["callees"][0]["baseline_samples"] == 10
PY
# several runs a side: the mean of the runs (-b a -b a against -c b -c a)
expect_exit 0 pd peek --sample-weight 1 -b "$T/a.folded" -b "$T/a.folded" -c "$T/b.folded" -c "$T/a.folded" '^parse$'
expect_grep '^ *800 *1000 *+25.0 %  main$' "$T/out"
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
