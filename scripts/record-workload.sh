#!/bin/sh
# Builds fixtures/workload/workload.c as a baseline and as a candidate with a
# planted slowdown (-DSLOW_PARSE), records each with `perf record -g`, and
# writes `perf script` text. Used for the demo fixtures and by the tests.
#
# usage: scripts/record-workload.sh OUTDIR [RUNS] [ROUNDS] [FREQ]
#   writes OUTDIR/base-N.perf.txt and OUTDIR/cand-N.perf.txt, N = 1..RUNS
# exit 77 when perf cannot record on this machine.
set -eu
out=$1
runs=${2:-1}
rounds=${3:-1500}
freq=${4:-1999}
here=$(cd "$(dirname "$0")/.." && pwd)
cc=${CC:-cc}
mkdir -p "$out/base" "$out/cand"
$cc -O2 -g -fno-omit-frame-pointer -o "$out/base/workload" "$here/fixtures/workload/workload.c"
$cc -O2 -g -fno-omit-frame-pointer -DSLOW_PARSE -o "$out/cand/workload" "$here/fixtures/workload/workload.c"
if ! perf record -q -o "$out/probe.data" true >/dev/null 2>&1; then
	echo "perf cannot record here (perf_event_paranoid or no perf)" >&2
	exit 77
fi
i=1
while [ "$i" -le "$runs" ]; do
	for side in base cand; do
		perf record -q -F "$freq" -g -o "$out/$side-$i.data" "$out/$side/workload" "$rounds" >/dev/null 2>&1
		perf script -i "$out/$side-$i.data" > "$out/$side-$i.perf.txt" 2>/dev/null
		rm -f "$out/$side-$i.data"
	done
	i=$((i + 1))
done
rm -f "$out/probe.data"
