#!/bin/sh
# A/A pairs on a busy machine: one build of fixtures/workload recorded RUNS
# times with perf (a CPU hog on one core half of the time), then every pair
# of consecutive recordings diffed by each perfdiff given. Prints, per
# binary: pairs, how many exited 1, the functions flagged per pair (the
# program's, self or total, regressed or improved), and the system frames
# set apart per pair. Not a test: a measurement (docs/statistics.md).
#
# usage: tests/bench/aa_pairs.sh OUTDIR RUNS ROUNDS PERFDIFF...
set -eu
out=$1 runs=$2 rounds=$3
shift 3
here=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
cc -O2 -g -fno-omit-frame-pointer -o "$out/workload" "$here/fixtures/workload/workload.c"
i=1
while [ "$i" -le "$runs" ]; do
	if [ $((i % 2)) = 0 ]; then
		(sh -c 'end=$(($(date +%s) + 3)); while [ "$(date +%s)" -lt $end ]; do :; done' &)
	fi
	perf record -q -F 1999 -g -o "$out/r.data" "$out/workload" "$rounds" >/dev/null 2>&1
	perf script -i "$out/r.data" >"$out/run-$i.perf.txt" 2>/dev/null
	i=$((i + 1))
done
rm -f "$out/r.data"
for pd in "$@"; do
	python3 - "$pd" "$out" "$runs" <<'PY'
import json, subprocess, sys
pd, out, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
pairs = exits = flagged = system = 0
for i in range(1, runs):
    r = subprocess.run([pd, "-f", "json", "%s/run-%d.perf.txt" % (out, i),
                        "%s/run-%d.perf.txt" % (out, i + 1)],
                       capture_output=True, text=True)
    if r.returncode > 1:
        sys.exit("perfdiff failed: " + r.stderr)
    d = json.loads(r.stdout)
    pairs += 1
    exits += r.returncode == 1
    for f in d["functions"]:
        moved = {f["self"]["status"], (f["total"] or {}).get("status")} & {"regressed", "improved"}
        if moved and not f.get("system"):
            flagged += 1
        elif moved:
            system += 1
print("%s: %d pairs, %d exit 1 (%.1f %%), %.2f functions flagged per pair, %.2f system frames set apart per pair"
      % (pd, pairs, exits, 100.0 * exits / pairs, flagged / pairs, system / pairs))
PY
done
