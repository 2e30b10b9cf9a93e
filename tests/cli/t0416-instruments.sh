#!/bin/sh
# Instruments "deep copy" text (Edit > Deep Copy of a call tree), in the
# shapes Instruments 7-16 write: "Running Time / Self (ms)", "Weight /
# Self Weight" with a spacer column, "Weight / Self Weight / Symbol Names"
# with every row padded alike and U+2007 in the percentages, and
# Allocations' "Bytes Used / Count". Files written here in those shapes;
# expected numbers counted by hand in the comments. Before this importer
# an Allocations copy was read as a WPA table.
. "$(dirname "$0")/lib.sh"

# Instruments 7: self in ms. gamma 2147, alpha 696, delta 693, malloc 16,
# leakMemory 1: 3553 ms, 3553 samples at the default 1 ms.
printf 'Running Time\tSelf (ms)\t\tSymbol Name\n4273.0ms   99.9%%\t0\t \tstart\n4273.0ms   99.9%%\t0\t \t main\n2126.0ms   49.7%%\t693\t \t  delta()\n713.0ms   16.6%%\t696\t \t   alpha()\n17.0ms    0.3%%\t1\t \t    leakMemory()\n16.0ms    0.3%%\t16\t \t     malloc\n2147.0ms   50.2%%\t2147\t \t  gamma()\n' >"$T/v7.txt"
# Instruments 16: "Symbol Names" padded by three spaces on every row;
# delta 846 ms, alpha 786, leakMemory 11, gamma 2480: 4123 ms.
printf 'Weight\tSelf Weight\tSymbol Names\n4.93 s  100.0%%\t0 s\t   start\n4.93 s  99.9%%\t0 s\t    main\n2.45 s  \342\200\20749.7%%\t846.00 ms\t     delta()\n797.00 ms  \342\200\20716.2%%\t786.00 ms\t      alpha()\n11.00 ms  \342\200\2070.2%%\t11.00 ms\t       leakMemory()\n2.48 s  50.3%%\t2.48 s\t     gamma()\n' >"$T/v16.txt"

expect_exit 0 pd show -f json "$T/v7.txt"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "Instruments 7 numbers"; fi
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: x for x in d["functions"]}
ms = lambda n: f[n]["self"] / 1e6
assert d["profile"]["format"] == "instruments" and d["profile"]["unit"] == "ns"
assert (ms("gamma()"), ms("alpha()"), ms("delta()"), ms("malloc"), ms("leakMemory()")) == (2147, 696, 693, 16, 1), f
assert f["delta()"]["total"] / 1e6 == 693 + 696 + 1 + 16
assert d["profile"]["total"] / 1e6 == 3553 and d["profile"]["samples"] == 3553
assert f["gamma()"]["self_samples"] == 2147
PY
expect_exit 0 pd show -f json "$T/v16.txt"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "Instruments 16 numbers"; fi
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: round(x["self"] / 1e6, 6) for x in d["functions"]}
assert f == {"start": 0, "main": 0, "delta()": 846, "alpha()": 786,
             "leakMemory()": 11, "gamma()": 2480}, f
PY
# The pair: every function moved, and by about as much: gamma 2147 ->
# 2480 ms +15.5 %, alpha 696 -> 786 +12.9 %, delta 693 -> 846 +22.1 %
# (their log ratios weighed by 1/(1/a + 1/b): +16.3 %); the total 3553 ->
# 4123 ms, +16.0 %. One pair cannot tell a machine-wide shift from a
# change of all the code: nothing is changed beyond the shift, and the
# total, judged at 20 % between runs, is inconclusive (exit 0), the
# headline naming the shift.
expect_exit 0 pd "$T/v7.txt" "$T/v16.txt"
expect_grep "^inconclusive: .*total +16.0 %.*, 3 of 3 functions moved +1[5-7]\.[0-9] % alike: machine-wide?$" "$T/out"
expect_no_grep "^regressed" "$T/out"
# Tested against the threshold (--treat): the same. The total's ratio is
# 4123.5/3553.5 (half a sample added a side); at 20 % a run, sqrt(2) x 0.20 = 0.283 in ln, with the
# sampling's sqrt(1.5 (1/3553 + 1/4123)) = 0.028: 0.284, its 95 %
# interval 1.96 x 0.284 = 0.557 either side in ln, from about 0.66.
expect_exit 0 pd --treat -f json "$T/v7.txt" "$T/v16.txt"
python3 -c 'import json, math, sys
d = json.load(open(sys.argv[1]))
g = {x["function"]: x for x in d["functions"]}["gamma()"]["self"]
t = d["total"]
assert d["verdict"] == "inconclusive" and d["settings"]["test"] == "threshold", d
assert g["status"] == "inconclusive" and g["ci_low"] < 1.05, g
assert abs(t["ratio"] - 4123.5 / 3553.5) < 1e-9, t
assert t["q"] > 0.05 and abs(math.log(t["ratio"] / t["ci_low"]) - 0.557) < 0.01, t' "$T/out" &&
	ok || not_ok "--treat: the pair is not an inconclusive +16 %"
expect_exit 0 pd --treat "$T/v7.txt" "$T/v16.txt"
expect_grep "^settings: threshold 5 % (each change tested against it)," "$T/out"
# --interval: 0.1 ms sampling makes ten times the samples
expect_exit 0 pd show -f json --interval 0.1 "$T/v7.txt"
expect_grep '"samples":[[:space:]]*35530,' "$T/out"

# Allocations: no self column: self = inclusive - children, exact, and
# malloc (the allocator) gives its bytes to alpha(): gamma 212.84 MB,
# delta 217.09 - 73.35 = 143.74 MB, alpha 73.35 MB (1 MB = 1048576 B).
printf 'Bytes Used\tCount\t\tSymbol Name\n 429.93 MB     100.0%%\t84671\t \tstart\n 429.93 MB     100.0%%\t84671\t \t main\n 217.09 MB      50.4%%\t42749\t \t  delta()\n  73.35 MB      17.0%%\t14337\t \t   alpha()\n  73.35 MB      17.0%%\t14337\t \t    malloc\n 212.84 MB      49.5%%\t41922\t \t  gamma()\n' >"$T/alloc.txt"
expect_exit 0 pd show -f json "$T/alloc.txt"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "Allocations numbers"; fi
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: x for x in d["functions"]}
MB = 1048576
near = lambda a, b: abs(a - b) < 1
assert d["profile"]["unit"] == "bytes" and d["profile"]["format"] == "instruments"
assert near(f["gamma()"]["self"], 212.84 * MB) and near(f["alpha()"]["self"], 73.35 * MB), f
assert near(f["delta()"]["self"], (217.09 - 73.35) * MB), f["delta()"]
assert f["gamma()"]["self_samples"] == 41922 and f["alpha()"]["self_samples"] == 14337
assert "malloc" not in f or f["malloc"]["self"] == 0
PY
# exact: a 3 % change is judged by the threshold alone (same, exit 0)
sed 's/212.84 MB/219.23 MB/; s/ 429.93 MB/ 436.32 MB/g' "$T/alloc.txt" >"$T/alloc2.txt"
expect_exit 0 pd -f json "$T/alloc.txt" "$T/alloc2.txt"
expect_grep '"p":[[:space:]]*null' "$T/out"

# The process and thread rows are no functions, and --process/--thread
# pick them: main 2 ms, work 8 ms.
printf 'Weight\tSelf Weight\t\tSymbol Name\n10.00 ms  100.0%%\t0 s\t \tapp (4321)\n10.00 ms  100.0%%\t0 s\t \t Main Thread  0x6e5e7\n10.00 ms  100.0%%\t2.00 ms\t \t  main\n8.00 ms  80.0%%\t8.00 ms\t \t   work\n' >"$T/proc.txt"
expect_exit 0 pd show -f json "$T/proc.txt"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "process and thread rows"; fi
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: x["self"] / 1e6 for x in d["functions"]}
assert f == {"main": 2, "work": 8}, f
PY
expect_exit 2 pd show --process other "$T/proc.txt"
expect_grep "no samples left after filtering" "$T/err"

# Bad input: one line naming the file and line, exit 2.
printf 'Weight\tSelf Weight\t\tSymbol Name\n96.08 Gc  100.0%%\t-\t \tapp (1)\n' >"$T/cyc.txt"
expect_exit 2 pd show "$T/cyc.txt"
expect_grep 'cyc.txt:2: a unit perfdiff does not know.*cycle counts' "$T/err"
printf 'Weight\tSelf Weight\t\tSymbol Name\n10.00 ms  100.0%%\t0 s\t \tmain\n8.00 ms  80.0%%\t8.00 ms\t \t   work\n' >"$T/deep.txt"
expect_exit 2 pd show "$T/deep.txt"
expect_lines 1 "$T/err"
expect_grep 'deep.txt:3: indented deeper than the row above allows' "$T/err"
printf 'Weight\tSelf Weight\t\tSymbol Name\nlots  100.0%%\t0 s\t \tmain\n' >"$T/bad.txt"
expect_exit 2 pd show "$T/bad.txt"
expect_grep 'bad.txt:2: not a weight' "$T/err"
# A row shorter than the header has no self time to read: refused, never
# given the row above's (work took main's 5 ms), also when its line is long
# enough to move the line buffer (the old values pointed into the freed one)
printf 'Running Time\tSymbol Name\tSelf (ms)\n10.0ms   100.0%%\tmain\t5\n10.0ms   100.0%%\t work\n' >"$T/short.txt"
expect_exit 2 pd show "$T/short.txt"
expect_lines 1 "$T/err"
expect_grep 'short.txt:3: fewer columns than the header (2 of 3)' "$T/err"
python3 -c 'import sys; sys.stdout.write("Running Time\tSymbol Name\tSelf (ms)\n10.0ms   100.0%\tmain\t5\n10.0ms   100.0%\t work" + "x" * (4 << 20) + "\n")' >"$T/long.txt"
expect_exit 2 pd show "$T/long.txt"
expect_lines 1 "$T/err"
expect_grep 'long.txt:3: fewer columns than the header (2 of 3)' "$T/err"
# convert keeps the verdicts (speedscope) and refuses exact bytes as folded
expect_exit 0 pd convert "$T/v7.txt" -o "$T/v7.json"
pd "$T/v7.txt" "$T/v16.txt" 2>/dev/null | head -1 >"$T/verdict.txt"
expect_exit 0 pd "$T/v7.json" "$T/v16.txt"
head -1 "$T/out" | cmp -s - "$T/verdict.txt" && ok || not_ok "converted, the headline differs: $(head -1 "$T/out")"
expect_exit 2 pd convert -f folded "$T/alloc.txt"
finish
