#!/bin/sh
# A large perf script text is read in pieces on threads
# (architecture.md, "Streaming"): the same profile, and the same verdicts
# with their time blocks, as one thread gives, and every sample counted.
. "$(dirname "$0")/lib.sh"
need_corpus
F=$PD_CORPUS/perf-script/FlameGraph-perf-iperf-stacks-pidtid-01.txt
# 70 copies: about 18 MB (17.3 MiB), past the 16 MiB two pieces of at
# least 8 MiB need
i=0
while [ $i -lt 70 ]; do
	cat "$F"
	i=$((i + 1))
done >"$T/big.txt"
PERFDIFF_THREADS=1 pd show -f json "$F" >"$T/one.json" 2>/dev/null
PERFDIFF_THREADS=1 pd show -f json "$T/big.txt" >"$T/t1.json" 2>/dev/null
for n in 2 3; do
	PERFDIFF_THREADS=$n pd show -f json "$T/big.txt" >"$T/t$n.json" 2>/dev/null
	if cmp -s "$T/t1.json" "$T/t$n.json"; then ok; else
		not_ok "show with $n threads differs from one thread"
	fi
done
# every sample of the 70 copies, counted once
if python3 - "$T/one.json" "$T/t2.json" <<'PY'; then ok; else not_ok "sample count of 70 copies"; fi
import json, sys
one, big = (json.load(open(p)) for p in sys.argv[1:])
s1 = sum(f["self_samples"] for f in one["functions"])
s2 = sum(f["self_samples"] for f in big["functions"])
assert s1 > 0 and s2 == 70 * s1, (s1, s2)
PY
# a diff, whose bursty functions come from the time blocks
PERFDIFF_THREADS=1 pd -f json "$F" "$T/big.txt" >"$T/d1.json" 2>/dev/null
PERFDIFF_THREADS=2 pd -f json "$F" "$T/big.txt" >"$T/d2.json" 2>/dev/null
if cmp -s "$T/d1.json" "$T/d2.json"; then ok; else
	not_ok "diff with 2 threads differs from one thread"
fi
finish
