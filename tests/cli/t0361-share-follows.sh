#!/bin/sh
# Several runs a side judged as they are (the levels do not explain the
# runs' scatter: A and B trade cycles from run to run) call a function
# changed only where its share of the run followed its move
# (docs/statistics.md, "Several runs per side"). A candidate whose every
# function ran 20 % faster, shares unchanged, called A, C and D improved
# -20 %; they are now undecided. A planted +40 % in C, its share moved
# with it, is still found.
. "$(dirname "$0")/lib.sh"
# runs NAME A B C D: a folded run; one sample apart, the counts share no
# divisor (docs/formats.md, "Folded stacks")
runs() {
	printf 'main;A %d\nmain;B %d\nmain;C %d\nmain;D %d\nmain;tiny 1\n' \
		"$2" "$3" "$4" "$5" >"$T/$1.folded"
}
runs a1 1000 1000 1000 1000
runs a2 1200 800 1000 1000
runs b1 800 800 800 800
runs b2 960 640 800 800
runs c1 1000 1000 1400 1000
runs c2 1200 800 1400 1000
expect_exit 0 pd -f json -b "$T/a1.folded" -b "$T/a2.folded" -c "$T/b1.folded" -c "$T/b2.folded"
if python3 - "$T/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
st = {f["function"]: f["self"]["status"] for f in d["functions"]}
assert d["verdict"] == "inconclusive", d["verdict"]
assert all(st[n] == "inconclusive" for n in "ACD"), st
PY
then ok; else not_ok "a machine 20 % faster called an improvement"; fi
expect_exit 1 pd -f json -b "$T/a1.folded" -b "$T/a2.folded" -c "$T/c1.folded" -c "$T/c2.folded"
if python3 - "$T/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
st = {f["function"]: f["self"] for f in d["functions"]}
assert st["C"]["status"] == "regressed" and abs(st["C"]["delta_pct"] - 40) < 1, st["C"]
assert all(st[n]["status"] != "improved" for n in "ABD"), st
PY
then ok; else not_ok "C +40 % not found"; fi
finish
