#!/bin/sh
# Inputs that once crashed an importer (found by the fuzz targets): each
# must now import or fail cleanly: exit 0, or exit 2 with one line.
. "$(dirname "$0")/lib.sh"
for f in "$PD_ROOT"/fixtures/regress/*; do
	for from in "" perf-script folded speedscope firefox wpa cpuprofile; do
		pd show ${from:+--from $from} "$f" >"$T/out" 2>"$T/err"
		rc=$?
		if [ "$rc" -eq 0 ]; then ok
		elif [ "$rc" -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ]; then ok
		else not_ok "$f (--from '$from'): exit $rc: $(head -c 300 "$T/err")"; fi
	done
done
finish
