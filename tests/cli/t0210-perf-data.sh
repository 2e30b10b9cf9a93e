#!/bin/sh
# A raw perf.data file is read through `perf script` (perf knows its
# format and where the symbols are): the same numbers as perf script's
# text given by hand. Without perf, one line says what to run.
. "$(dirname "$0")/lib.sh"
command -v perf >/dev/null || { echo "perf not installed: skipped"; exit 77; }
cc -O2 -g -fno-omit-frame-pointer -o "$T/w" "$PD_ROOT/fixtures/workload/workload.c" || exit 1
if ! perf record -q -F 999 -g -o "$T/a.data" "$T/w" 600 >/dev/null 2>&1; then
	echo "perf cannot record here (perf_event_paranoid?): skipped"
	exit 77
fi
perf script -i "$T/a.data" >"$T/a.txt" 2>/dev/null
expect_exit 0 pd -f json "$T/a.data" "$T/a.txt"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "perf.data read as perf script's text"; fi
import json, sys
d = json.load(open(sys.argv[1]))
assert d["baseline"]["samples"] == d["candidate"]["samples"] > 0, (d["baseline"], d["candidate"])
for f in d["functions"]:
    for m in ("self", "total"):
        assert f[m]["baseline"] == f[m]["candidate"], (f["function"], m, f[m])
assert d["baseline"]["source"].endswith("a.data")
PY
expect_grep "a.data: read through \`perf script\`" "$T/err"
expect_exit 2 pd show --perf "$T/no-perf-here" "$T/a.data"
expect_lines 1 "$T/err"
expect_grep "a.data: a perf.data file, and \`.*no-perf-here script -i .*a.data\` could not run" "$T/err"
finish
