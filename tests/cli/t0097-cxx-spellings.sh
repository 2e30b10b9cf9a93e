#!/bin/sh
# One C++ function under two spellings of its integer types: GCC's debug
# names (and older demanglers) say "long int", "long unsigned int"; the
# Itanium demangler says "long", "unsigned long". They are one function
# (docs/cli.md, "Matching functions across builds"): the pair below is
# the same program, 1000 samples a function on each side, and reads as
# identical, not as two functions added and two removed.
. "$(dirname "$0")/lib.sh"
printf '%s\n' 'main;run(long int, long unsigned int) 40000' \
	'main;std::vector<short unsigned int>::at(long unsigned int) 40000' \
	'main;io 40000' >"$T/a.folded"
printf '%s\n' 'main;run(long, unsigned long) 40000' \
	'main;std::vector<unsigned short>::at(unsigned long) 40000' \
	'main;io 40000' >"$T/b.folded"
expect_exit 0 pd --sample-weight 1 -f json "$T/a.folded" "$T/b.folded"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "one function a spelling pair"; fi
import json, sys
d = json.load(open(sys.argv[1]))
names = sorted(f["function"] for f in d["functions"])
assert names == ["io", "main", "run(long, unsigned long)",
                 "std::vector<unsigned short>::at(unsigned long)"], names
for f in d["functions"]:
    assert f["self"]["status"] not in ("added", "removed", "regressed"), f
PY
expect_exit 0 pd --sample-weight 1 "$T/a.folded" "$T/b.folded"
expect_grep "^inconclusive: the two profiles are identical" "$T/out"
finish
