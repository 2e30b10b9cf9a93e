#!/bin/sh
# perf.data recorded here, read directly: the same functions and numbers as
# perf script's text of the same file, on a recording with several
# processes (a shell forking and executing programs, libc, the kernel).
# A DWARF call-graph recording is handed to perf script, and the report
# says so; a recording whose perf was killed is read up to where it stops.
# One difference is accounted for: PLT stubs of a library whose stubs are
# not in relocation order (libc's IFUNC stubs) stay with their module in
# perfdiff; perf names them; the test accounts for exactly those samples.
. "$(dirname "$0")/lib.sh"
command -v perf >/dev/null || { echo "perf not installed: skipped"; exit 77; }
cc -O2 -fno-omit-frame-pointer -o "$T/m" "$PD_ROOT/fixtures/workload/mixed.c" || exit 1
if ! perf record -q -F 999 -g -o "$T/a.data" -- sh -c \
	"$T/m 300 & $T/m 300; ls -lR /usr/lib >/dev/null; wait" >/dev/null 2>&1; then
	echo "perf cannot record here (perf_event_paranoid?): skipped"
	exit 77
fi
perf script -i "$T/a.data" >"$T/a.txt" 2>/dev/null

# agree FILE.json TEXT.json: every function the same, stubs perfdiff cannot place apart
agree() {
	python3 - "$1" "$2" <<'PY'
import json, sys
from collections import defaultdict
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["profile"]["samples"] == b["profile"]["samples"] > 0
assert a["profile"]["total"] == b["profile"]["total"]
fa = {(f["function"], f["module"]): f for f in a["functions"]}
fb = {(f["function"], f["module"]): f for f in b["functions"]}
plt = defaultdict(lambda: [0, 0])  # per module: PLT self, total samples
for (n, m), f in fb.items():
    if n.endswith("@plt"):
        plt[m][0] += f["self_samples"]
        plt[m][1] += f["total_samples"]
extra = defaultdict(lambda: [0, 0])
for k in set(fa) | set(fb):
    if k[0].endswith("@plt"):
        continue
    x, y = fa.get(k), fb.get(k)
    ds = (x["self_samples"] if x else 0) - (y["self_samples"] if y else 0)
    dt = (x["total_samples"] if x else 0) - (y["total_samples"] if y else 0)
    if ds or dt:
        # a stub's samples land on its module's frame or a neighbour
        assert k[1] in plt and ds >= 0 and dt >= 0, (k, x, y)
        extra[k[1]][0] += ds
        extra[k[1]][1] += dt
for m, (s, t) in extra.items():
    assert s == plt[m][0] and t <= plt[m][1], (m, extra[m], plt[m])
# The stubs' tolerance must not hide much: 1 % of the samples, or a
# dozen in a small profile (ls alone, PLT-heavy, had 9 of a few hundred).
n = a["profile"]["samples"]
assert sum(v[0] for v in plt.values()) <= max(0.01 * n, 12), (dict(plt), n)
PY
}
expect_exit 0 pd show -f json "$T/a.data"
cp "$T/out" "$T/direct.json"
expect_no_grep "perf script" "$T/err"
expect_exit 0 pd show -f json "$T/a.txt"
cp "$T/out" "$T/text.json"
if agree "$T/direct.json" "$T/text.json"; then ok; else not_ok "perf.data read as perf script reads it"; fi
if python3 - "$T/direct.json" <<'PY'; then ok; else not_ok "processes and libraries named"; fi
import json, sys
d = json.load(open(sys.argv[1]))
names = {f["function"] for f in d["functions"]}
assert {"f00", "f05", "main"} <= names, names
assert set(d["profile"]["threads"]) >= {"m", "ls"}, d["profile"]["threads"]
assert any(f["module"] == "libc.so.6" and not f["function"].startswith("[")
           for f in d["functions"])
PY
# --process keeps one program, as for perf script's text
expect_exit 0 pd show -f json --process ls "$T/a.data"
cp "$T/out" "$T/ls1.json"
expect_exit 0 pd show -f json --process ls "$T/a.txt"
if agree "$T/ls1.json" "$T/out"; then ok; else not_ok "--process on perf.data"; fi

# DWARF call graphs: perf unwinds them; the report says so.
if perf record -q -F 199 --call-graph dwarf -o "$T/d.data" "$T/m" 100 >/dev/null 2>&1; then
	perf script -i "$T/d.data" >"$T/d.txt" 2>/dev/null
	expect_exit 0 pd show -f json "$T/d.data"
	cp "$T/out" "$T/dd.json"
	expect_grep "d.data: DWARF call graphs (--call-graph dwarf) are unwound by perf, so it was read through perf script" "$T/err"
	expect_exit 0 pd show -f json "$T/d.txt"
	if agree "$T/dd.json" "$T/out"; then ok; else not_ok "DWARF recording through perf script"; fi
	expect_exit 2 pd show --perf "$T/no-perf-here" "$T/d.data"
	expect_lines 1 "$T/err"
	expect_grep "d.data: a perf.data file, and \`.*no-perf-here script -i .*d.data\` could not run" "$T/err"
fi

# perf record killed: no sizes in the header, the last record cut.
# (-m 4: small buffers, written to the file as the run goes)
perf record -q -m 4 -F 999 -g -o "$T/k.data" "$T/m" 100000 >/dev/null 2>&1 &
rec=$!
# killed once samples are on disk, however slowly the machine got there
i=0
while [ $i -lt 200 ] && [ "$( (wc -c <"$T/k.data") 2>/dev/null || echo 0)" -lt 262144 ]; do
	sleep 0.1
	i=$((i + 1))
done
sleep 0.5
kill -9 "$rec"
wait "$rec" 2>/dev/null
pkill -f "$T/m" 2>/dev/null
expect_exit 0 pd show -f json "$T/k.data"
expect_grep "k.data: perf record did not finish writing it (killed?): read up to its end" "$T/err"
expect_grep "k.data: .* addresses in .*/m left unnamed: no build id recorded, and no way to tell .* (the recording names no host" "$T/err"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "a killed recording's samples"; fi
import json, sys
d = json.load(open(sys.argv[1]))
assert d["profile"]["samples"] > 100, d["profile"]
PY

# A fixed period (perf record -c N): the samples carry no period of their
# own, the event's attribute has it; every sample weighs N (here 0.1 ms
# of cpu-clock), as perf report's event count and the text's period say.
perf record -q -c 100000 -e cpu-clock -g -o "$T/c.data" -- "$T/m" 200 >/dev/null 2>&1
perf script -i "$T/c.data" >"$T/c.txt" 2>/dev/null
events=$(perf report -i "$T/c.data" --stdio 2>/dev/null | sed -n 's/^# Event count (approx.): //p' | head -n 1)
expect_exit 0 pd show -f json "$T/c.data"
if python3 - "$T/out" "$events" <<'PY'; then ok; else not_ok "fixed period: $(head -c 300 "$T/out")"; fi
import json, sys
p = json.load(open(sys.argv[1]))["profile"]
assert p["unit"] == "ns", p["unit"]
assert p["total"] == int(sys.argv[2]) == 100000 * p["samples"], (p, sys.argv[2])
PY
expect_exit 0 pd "$T/c.data" "$T/c.txt" --threshold 1
expect_no_grep "units differ" "$T/err"
expect_grep "no function changed beyond the threshold\|same\|profiles are identical" "$T/out"
finish
