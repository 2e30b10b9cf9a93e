#!/bin/sh
# Code written at run time, named from the JIT's /tmp/perf-PID.map as perf
# names it: a program that emits two spin loops into anonymous executable
# memory and writes the map, recorded here; perf.data read directly gives
# perf script's functions and numbers. Without the map, or with a map
# written after the recording (another process with the same PID), the
# code stays unnamed with a note; a copy of the map in a --symbols folder
# names it.
. "$(dirname "$0")/lib.sh"
command -v perf >/dev/null || { echo "perf not installed: skipped"; exit 77; }
[ "$(uname -m)" = x86_64 ] || { echo "the JIT fixture is x86-64 code: skipped"; exit 77; }
cc -O2 -fno-omit-frame-pointer -o "$T/jit" "$PD_ROOT/fixtures/workload/jit.c" || exit 1
if ! perf record -q -F 999 -g -o "$T/j.data" -- "$T/jit" 300 >"$T/map.path" 2>/dev/null; then
	echo "perf cannot record here (perf_event_paranoid?): skipped"
	exit 77
fi
map=$(cat "$T/map.path")
case $map in /tmp/perf-[0-9]*.map) ;; *) not_ok "no map path: $map"; finish; exit 1 ;; esac
mv "$map" "$T/saved.map"
cp "$T/saved.map" "$map"
trap 'rm -rf "$T" "$map"' EXIT
perf script -i "$T/j.data" >"$T/j.txt" 2>/dev/null

expect_exit 0 pd show -f json "$T/j.data"
cp "$T/out" "$T/direct.json"
expect_exit 0 pd show -f json "$T/j.txt"
if python3 - "$T/direct.json" "$T/out" "$(basename "$map")" <<'PY'; then ok; else not_ok "JIT code named as perf names it"; fi
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
mod = sys.argv[3]
key = lambda f: (f["function"], f["module"])
fa = {key(f): (f["self_samples"], f["total_samples"]) for f in a["functions"]}
fb = {key(f): (f["self_samples"], f["total_samples"]) for f in b["functions"]}
assert fa == fb, set(fa.items()) ^ set(fb.items())
n = a["profile"]["samples"]
lng, shrt = fa[("jit_spin_long", mod)][0], fa[("jit_spin_short", mod)][0]
# twice the steps per call: about twice the samples, and most of the run
assert 1.5 < lng / shrt < 2.8 and lng + shrt > 0.8 * n, (lng, shrt, n)
assert not a["warnings"], a["warnings"]
PY

# no map: one bucket named after the module, and a note saying why
rm -f "$map"
expect_exit 0 pd show -f json "$T/j.data"
cp "$T/out" "$T/nomap.json"
perf script -i "$T/j.data" >"$T/j2.txt" 2>/dev/null
expect_exit 0 pd show -f json "$T/j2.txt"
if python3 - "$T/nomap.json" "$T/out" "$(basename "$map")" <<'PY'; then ok; else not_ok "unnamed JIT code as perf leaves it"; fi
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
mod = sys.argv[3]
key = lambda f: (f["function"], f["module"])
fa = {key(f): f["self_samples"] for f in a["functions"]}
fb = {key(f): f["self_samples"] for f in b["functions"]}
assert fa == fb and ("[%s]" % mod, mod) in fa, (fa, fb)
assert any("left unnamed: no /tmp/perf-" in w and "--perf-basic-prof" in w
           for w in a["warnings"]), a["warnings"]
PY

# a map written after the recording belongs to another process
cp "$T/saved.map" "$map"
touch -d "+1 hour" "$map"
expect_exit 0 pd show -f json "$T/j.data"
expect_grep "was written after the recording (another process with the same PID?)" "$T/out"
expect_no_grep '"jit_spin_long"' "$T/out"

# a copy kept with the recording names the code anywhere
rm -f "$map"
mkdir "$T/syms"
cp "$T/saved.map" "$T/syms/$(basename "$map")"
expect_exit 0 pd show -f json --symbols "$T/syms" "$T/j.data"
expect_grep '"jit_spin_short"' "$T/out"
finish
