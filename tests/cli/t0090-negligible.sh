#!/bin/sh
# A real change beyond the threshold that is too small a part of the whole
# is "negligible", not "same", and no reason for exit 1: small doubles
# (2000 -> 4000 samples: z far past any alpha) but is 0.2 % of the total,
# under the 0.5 % minimum impact. With --min-impact 0.1 it is a regression.
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
assert s["q"] < 1e-6 and s["ci_low"] > 1.05 and s["impact_pct"] < 0.5, s
assert d["verdict"] != "regressed", d["verdict"]
PY
expect_exit 1 pd --sample-weight 1 --min-impact 0.1 "$T/a.folded" "$T/b.folded"
expect_grep "regressed.*small" "$T/out"
finish
