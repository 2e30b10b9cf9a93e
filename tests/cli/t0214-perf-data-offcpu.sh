#!/bin/sh
# Off-CPU time from perf.data read directly (docs/formats.md, "Off-CPU
# time"), on a recording that travels with the repository
# (fixtures/perfdata/README.md): the sched_switch samples' raw fields,
# laid out by the tracepoint format the file carries, and the switch-in
# records give each thread's waits. Checked against what perf script
# printed for the same file on the machine that made it:
# - each thread's CPU + waiting is that thread's cpu-clock periods plus
#   the gaps between its switch-out and switch-in records, as
#   tests/tools/perf_offcpu.py reads them from the text (no code shared
#   with perfdiff), within 1 %;
# - each function's waits of each kind (blocked, ready) add up to what
#   the text's sched_switch samples (state, stack) and switch-in lines
#   give by hand.
. "$(dirname "$0")/lib.sh"
F="$PD_ROOT/fixtures/perfdata"
mkdir -p "$T/home"
HOME="$T/home"
PERF_BUILDID_DIR="$T/home/none"
export HOME PERF_BUILDID_DIR
gzip -dc "$F/offcpu.perf.txt.gz" >"$T/offcpu.txt"

expect_exit 0 pd show --symbols "$F" "$F/offcpu.data"
expect_grep "off-CPU time from 162 context switches" "$T/err"
expect_no_grep "not read as off-CPU time" "$T/err"

python3 "$PD_ROOT/tests/tools/perf_offcpu.py" "$T/offcpu.txt" >"$T/ind"
n=0
while read -r tid cpu off; do
	n=$((n + 1))
	pd show --symbols "$F" --thread "$tid" "$F/offcpu.data" >"$T/out" 2>/dev/null
	if python3 - "$T/out" "$cpu" "$off" <<'PY'; then ok; else not_ok "thread $tid: CPU + waiting"; fi
import re, sys
got = float(re.search(r"total ([0-9.]+) ms", open(sys.argv[1]).read()).group(1))
want = float(sys.argv[2]) + float(sys.argv[3])
assert abs(got - want) <= 0.01 * want, (got, want)
PY
done <"$T/ind"
[ "$n" -eq 2 ] && ok || not_ok "two threads in the independent reading, not $n"

# Each (function, kind)'s waited time, from the text by hand: a
# sched_switch sample's time, state and tid, its stack's first frame
# that is neither kernel nor the C library or loader (docs/formats.md,
# "Where a wait goes"), up to the thread's next switch-in: a
# "PERF_RECORD_SWITCH IN" line, or a sched_switch naming it as next_pid.
expect_exit 0 pd show -f json --symbols "$F" "$F/offcpu.data"
if python3 - "$T/out" "$T/offcpu.txt" <<'PY'; then ok; else not_ok "waits per function and kind"; fi
import json, re, sys
from collections import defaultdict
d = json.load(open(sys.argv[1]))
head = re.compile(r"^\S.*?\s(\d+)\s+(?:\[\d+\]\s+)?(\d+\.\d+):\s+(.*)$")
outs, ins, cur = [], defaultdict(list), None
for line in open(sys.argv[2]):
    m = head.match(line)
    if m:
        cur = None
        tid, t, rest = int(m.group(1)), float(m.group(2)), m.group(3)
        if rest.startswith("PERF_RECORD_SWITCH IN"):
            ins[tid].append(t)
        s = re.search(r"sched:sched_switch: .* prev_state=(\S+) .*next_pid=(\d+)", rest)
        if s:
            cur = []
            outs.append((tid, t, s.group(1), cur))
            ins[int(s.group(2))].append(t)  # the thread switched in
    elif line.strip() and cur is not None:
        f = re.match(r"\s*[0-9a-f]+ (.*?)(\+0x[0-9a-f]+)? \((.*)\)$", line.rstrip())
        cur.append((f.group(1), f.group(3)))
want, n = defaultdict(float), defaultdict(int)
for tid, t, state, stack in outs:
    later = [x for x in ins[tid] if x >= t]
    if not later:
        continue  # the thread never came back: left out
    kind = "io" if "D" in state else "ready" if state[0] == "R" else "blocked"
    user = [s for s, dso in stack if not dso.startswith("[")]
    prog = [s for s, dso in stack if not dso.startswith("[") and
            not re.search(r"/(libc|libpthread|ld-linux)[^/]*$", dso)]
    name = "%s (%s)" % ((prog or user or [stack[0][0]])[0], kind)
    want[name] += (min(later) - t) * 1e9
    n[name] += 1
got = {f["function"]: f["self"] for f in d["functions"]}
assert sum(n.values()) == 162, sum(n.values())
assert n["compute (ready)"] > 0 and n["nap (blocked)"] > 0, dict(n)
for name, ns in want.items():
    # the text keeps microseconds: 1 us a wait either way
    assert abs(got.get(name, 0) - ns) <= 2e3 * n[name], (name, ns, got.get(name))
waits = {k for k in got if re.search(r" \((blocked|ready|io|stopped)\)$", k)}
assert waits == set(want), (waits, set(want))
PY

# The same file as its text: the same waits, to the microsecond the text
# keeps.
expect_exit 0 pd show -f json "$T/offcpu.txt"
cp "$T/out" "$T/text.json"
expect_exit 0 pd show -f json --symbols "$F" "$F/offcpu.data"
if python3 - "$T/out" "$T/text.json" <<'PY'; then ok; else not_ok "perf.data and its text agree"; fi
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
fa = {f["function"]: f for f in a["functions"]}
fb = {f["function"]: f for f in b["functions"]}
waits = [n for n in fa if n.endswith("(blocked)") or n.endswith("(ready)")]
assert len(waits) >= 4, waits
for n in waits:
    x, y = fa[n]["self"], fb[n]["self"]
    assert abs(x - y) <= 5e3 + 1e-3 * y, (n, x, y)
PY

# Without the tracepoint format the fields cannot be read: one note, the
# CPU profile as before (without --event the first event sampled is
# chosen, here the switches, as counts: a warning says so).
python3 - "$F/offcpu.data" "$T/noformat.data" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
i = b.find(b"name: sched_switch\n")
assert i > 0
b[i:i + 6] = b"nAme: "
open(sys.argv[2], "wb").write(b)
PY
expect_exit 0 pd show --event cpu-clock --symbols "$F" "$T/noformat.data"
expect_grep "not read as off-CPU time: their fields (prev_pid, prev_state) are not in the file" "$T/err"
expect_grep "compute" "$T/out"
expect_no_grep "(blocked)" "$T/out"
finish
