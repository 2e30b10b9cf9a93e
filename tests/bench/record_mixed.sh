#!/bin/sh
# Records fixtures/workload/mixed.c on a busy machine for the verdict
# measurements (tests/bench/verdicts.py, docs/statistics.md): per round,
# three recordings of the unchanged build interleaved with one of each
# planted build (+PCT % in f00, f01 and f08: about 24 %, 13 % and 4 % of
# the run), so every side sees the same drift of the machine. Every other
# round a busy loop holds one core and another copy of the program
# competes for the memory bus. Not a test: a measurement.
#
# usage: tests/bench/record_mixed.sh OUTDIR ROUNDS [PCT] [FREQ]
#   writes OUTDIR/a-R-K.perf.txt (K = 1..3) and OUTDIR/pF-R.perf.txt
#   HOG=0: no busy loop or second copy (when other work loads the
#   machine already)
#   PLANTS="0 1 8": the planted functions, each after its own unchanged
#   run (K counts them); WORK=400: the program's rounds (400 is about
#   1.2 s and 2 400 samples; longer runs resolve smaller functions)
set -eu
out=$1 rounds=$2 pct=${3:-20} freq=${4:-1999}
plants=${PLANTS:-0 1 8} work=${WORK:-400} hogs=${HOG:-1}
here=$(cd "$(dirname "$0")/../.." && pwd)
src=$here/fixtures/workload/mixed.c
mkdir -p "$out"
cc=${CC:-cc}
flags="-O2 -g -fno-omit-frame-pointer"
# shellcheck disable=SC2086
$cc $flags -o "$out/mixed-a" "$src"
for f in $plants; do
	# shellcheck disable=SC2086
	$cc $flags -DPLANT=$f -DPLANT_PCT="$pct" -o "$out/mixed-p$f" "$src"
done
rec() { # binary, output
	perf record -q -F "$freq" -g -o "$out/r.data" "$1" "$work" >/dev/null 2>&1
	perf script -i "$out/r.data" >"$2" 2>/dev/null
}
r=1
while [ "$r" -le "$rounds" ]; do
	hog=
	if [ "$hogs" = 1 ] && [ $((r % 2)) = 0 ]; then
		sh -c 'while :; do :; done' &
		hog=$!
		"$out/mixed-a" 100000 >/dev/null &
		hog="$hog $!"
	fi
	k=1
	for f in $plants; do
		rec "$out/mixed-a" "$out/a-$r-$k.perf.txt"
		rec "$out/mixed-p$f" "$out/p$f-$r.perf.txt"
		k=$((k + 1))
	done
	# shellcheck disable=SC2086
	[ -z "$hog" ] || kill $hog 2>/dev/null || true
	r=$((r + 1))
done
rm -f "$out/r.data"
