#!/bin/sh
# Cost shifts (statistics.md): work that moved from validate to decode
# under an unchanged parse is labelled, both ways; a plain regression is not.
. "$(dirname "$0")/lib.sh"
printf 'main;parse;decode 100000\nmain;parse;validate 100000\nmain;other 200000\n' >"$T/a.folded"
printf 'main;parse;decode 150000\nmain;parse;validate 50000\nmain;other 200000\n' >"$T/b.folded"
printf 'main;parse;decode 150000\nmain;parse;validate 100000\nmain;other 200000\n' >"$T/c.folded"
expect_exit 1 pd --sample-weight 1 "$T/a.folded" "$T/b.folded"
expect_grep "regressed .*decode (cost shift from validate)" "$T/out"
expect_grep "improved .*validate (cost shift to decode)" "$T/out"
expect_exit 1 pd --sample-weight 1 -f json "$T/a.folded" "$T/c.folded"
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert all(f["self"]["cost_shift"] is None for f in d["functions"])' "$T/out"; then ok; else
	not_ok "a plain regression labelled as a cost shift"
fi
finish
