#!/bin/sh
# A slice of the program-shapes benchmark (tests/bench/shapes.py,
# statistics.md, "Calibration on program shapes") on real recordings: the
# phased program (read all input, then parse every record, then build an
# index, then checksum), built as is and with parse_record doing exactly
# 35 % more steps, recorded with perf, interleaved, on whatever else the
# machine runs, 480 000 records (1.2 s, about 2 400 samples a run: fewer,
# and the three other functions cannot show the machine's shift well
# enough for one pair to tell +35 % beyond it). One profile a side never
# calls the change wrong, three a side find it, the same runs as
# folded stacks (no sample times) get the same verdict, and two runs of
# one build exit 0 (the bench: 0 of 24).
. "$(dirname "$0")/lib.sh"
if ! perf record -q -o "$T/probe.data" true >/dev/null 2>&1; then
	echo "skipped: perf cannot record here (perf_event_paranoid or no perf)"
	exit 77
fi
src=$PD_ROOT/tests/bench/shapes/phased.c
flags="-O2 -g -fno-omit-frame-pointer"
# shellcheck disable=SC2086
cc $flags -o "$T/a" "$src" && cc $flags -DPLANT_FN=1 -DPLANT_PCT=35 -o "$T/p" "$src" ||
	{ not_ok "build"; finish; }
rec() { # binary, output
	perf record -q -F 1999 -g -o "$T/r.data" "$1" 480000 >/dev/null 2>&1 &&
		perf script -i "$T/r.data" >"$2.perf.txt" 2>/dev/null &&
		python3 "$PD_ROOT/tests/bench/shapes_fold.py" "$2.perf.txt" "$2.folded"
}
# The recordings and what is asserted of them, once more when a check
# fails (lib.sh, measured): a loaded machine can move one recording's
# functions unevenly for real. (The body is not indented: it holds Python.)
slice() {
for i in 1 2 3; do
	rec "$T/a" "$T/a$i" && rec "$T/p" "$T/p$i" && rec "$T/a" "$T/b$i" ||
		{ not_ok "recording failed"; return; }
done
verdict() { # file: parse_record's self status
	python3 -c '
import json, re, sys
d = json.load(open(sys.argv[1]))
print([f["self"]["status"] for f in d["functions"] if f["function"] == "parse_record"][0])' "$1"
}
found=0 agree=0 wrong=0
for i in 1 2 3; do
	pd -f json "$T/a$i.perf.txt" "$T/p$i.perf.txt" >"$T/perf.json" 2>/dev/null
	pd -f json "$T/a$i.folded" "$T/p$i.folded" >"$T/folded.json" 2>/dev/null
	v=$(verdict "$T/perf.json") w=$(verdict "$T/folded.json")
	[ "$v" = regressed ] && found=$((found + 1))
	case $v in regressed | inconclusive) ;; *) wrong=$((wrong + 1)) ;; esac
	[ "$v" = "$w" ] && agree=$((agree + 1))
	echo "pair $i: perf script $v, folded $w"
done
# One pair finds +35 % on a quiet machine; on a busy one the functions'
# own speeds move 10-20 % a run, which one pair cannot see, and it says
# undecided (statistics.md, "The benchmark of real programs"): never a
# wrong verdict is what one pair promises, finding it is three runs'.
echo "single pairs: +35 % found in $found of 3"
[ "$wrong" -eq 0 ] && ok || not_ok "+35 % in parse_record called neither regressed nor undecided in $wrong of 3 single pairs"
[ "$agree" -eq 3 ] && ok || not_ok "perf script and folded agree on $agree of 3 pairs"
# Three runs a side: the change found, the prior the model's (four
# functions and the total are too few rows for a fitted trend).
pd -f json -b "$T/a1.perf.txt" -b "$T/a2.perf.txt" -b "$T/a3.perf.txt" \
	-c "$T/p1.perf.txt" -c "$T/p2.perf.txt" -c "$T/p3.perf.txt" >"$T/runs.json" 2>/dev/null
if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["dispersion"]["prior"] == "the model, too few functions for a trend", d["dispersion"]
f = [f for f in d["functions"] if f["function"] == "parse_record"][0]
assert f["self"]["status"] == "regressed" and f["self"]["ci_low"] < 1.35 < f["self"]["ci_high"], f["self"]' "$T/runs.json"; then ok; else
	not_ok "3 runs a side: $(head -c 300 "$T/runs.json")"
fi
exits=0
for i in 1 2 3; do
	pd "$T/a$i.perf.txt" "$T/b$i.perf.txt" >/dev/null 2>&1 || exits=$((exits + 1))
done
[ "$exits" -eq 0 ] && ok || not_ok "$exits of 3 pairs of one build exit non-zero"
}
measured slice
finish
