#!/bin/sh
# Records two builds interleaved, A B A B, for a paired comparison
# (docs/statistics.md, "Several runs per side"): whatever the machine does
# that hour falls on both runs of a pair, and `perfdiff --paired` takes it
# out. Each run is recorded with `perf record` and written as `perf
# script` text.
#
# usage: scripts/record-ab.sh [--tool T] OUTDIR RUNS BASELINE-PROGRAM CANDIDATE-PROGRAM [ARGS...]
#   runs each program RUNS times with ARGS, baseline first in every pair;
#   writes OUTDIR/base-N.perf.txt and OUTDIR/cand-N.perf.txt, then prints
#   the perfdiff command. FREQ (default 1999) sets the sampling frequency;
#   CALL_GRAPH (default fp) is perf's --call-graph (dwarf when the
#   programs lack frame pointers).
#   --tool callgrind or --tool cachegrind records under valgrind instead
#   (OUTDIR/base-N.callgrind.out, ...): exact counts, the same for every
#   run, so RUNS 1 is enough and the command printed compares the two
#   files, no pairing.
# exit 77 when perf (or valgrind) cannot record here.
set -eu
tool=perf
case ${1:-} in
--tool) tool=${2:-}; shift 2 ;;
--tool=*) tool=${1#--tool=}; shift ;;
esac
case $tool in
perf | callgrind | cachegrind) ;;
*) echo "$0: --tool $tool: want perf, callgrind or cachegrind" >&2; exit 2 ;;
esac
if [ $# -lt 4 ]; then
	echo "usage: $0 [--tool perf|callgrind|cachegrind] OUTDIR RUNS BASELINE-PROGRAM CANDIDATE-PROGRAM [ARGS...]" >&2
	exit 2
fi
out=$1 runs=$2 base=$3 cand=$4
shift 4
freq=${FREQ:-1999} cg=${CALL_GRAPH:-fp}
mkdir -p "$out"
if [ "$tool" != perf ]; then
	if ! valgrind -q --tool="$tool" "--$tool-out-file=$out/probe.out" true >/dev/null 2>&1; then
		echo "valgrind cannot record here (not installed?)" >&2
		exit 77
	fi
	rm -f "$out/probe.out"
	i=1
	while [ "$i" -le "$runs" ]; do
		for side in base cand; do
			if [ "$side" = base ]; then prog=$base; else prog=$cand; fi
			valgrind -q --tool="$tool" "--$tool-out-file=$out/$side-$i.$tool.out" \
				-- "$prog" "$@" >/dev/null
		done
		i=$((i + 1))
	done
	if [ "$runs" -eq 1 ]; then
		printf 'perfdiff %s/base-1.%s.out %s/cand-1.%s.out\n' "$out" "$tool" "$out" "$tool"
		exit 0
	fi
	printf 'perfdiff --paired'
	i=1
	while [ "$i" -le "$runs" ]; do
		printf ' -b %s/base-%d.%s.out -c %s/cand-%d.%s.out' "$out" "$i" "$tool" "$out" "$i" "$tool"
		i=$((i + 1))
	done
	printf '\n'
	exit 0
fi
if ! perf record -q -o "$out/probe.data" true >/dev/null 2>&1; then
	echo "perf cannot record here (perf_event_paranoid or no perf)" >&2
	exit 77
fi
rm -f "$out/probe.data"
i=1
while [ "$i" -le "$runs" ]; do
	for side in base cand; do
		if [ "$side" = base ]; then prog=$base; else prog=$cand; fi
		perf record -q -F "$freq" --call-graph "$cg" -o "$out/run.data" \
			"$prog" "$@" >/dev/null
		perf script -i "$out/run.data" >"$out/$side-$i.perf.txt" 2>/dev/null
	done
	i=$((i + 1))
done
rm -f "$out/run.data"
printf 'perfdiff --paired'
i=1
while [ "$i" -le "$runs" ]; do
	printf ' -b %s/base-%d.perf.txt -c %s/cand-%d.perf.txt' "$out" "$i" "$out" "$i"
	i=$((i + 1))
done
printf '\n'
