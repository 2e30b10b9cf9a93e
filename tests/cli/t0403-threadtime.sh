#!/bin/sh
# PerfView's Thread Time export (speedscope, evented): the time a function
# waited is its own, of its kind, beside the time it ran: BLOCKED_TIME
# under app!ReadMft() is "ReadMft() (blocked)", DISK_TIME "ReadMft()
# (disk)"; the frames between a function and its wait (the disk file, the
# thread that readied it) are no functions. Waits are judged as waits
# (docs/statistics.md, "Waiting time"). The profiles are written by
# tests/tools/threadtime_make.py from PerfView's layout; the expected
# figures are its arguments: 10 waits of 20 ms, 5 disk reads of 8 ms, 1000
# ms of CPU in app!Parse().
. "$(dirname "$0")/lib.sh"
mk() { python3 "$PD_ROOT/tests/tools/threadtime_make.py" "$@" || exit 1; }
mk "$T/a.json" 10 20 1000 5 8
expect_exit 0 pd show -f json "$T/a.json"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "kinds of time: $(head -c 400 "$T/out")"; fi
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: x for x in d["functions"]}
ms = lambda name, k: f[name][k] / 1e6
assert abs(ms("ReadMft() (blocked)", "self") - 200) < 1e-6, f["ReadMft() (blocked)"]
assert abs(ms("ReadMft() (disk)", "self") - 40) < 1e-6
assert abs(ms("Parse()", "self") - 1000) < 1e-6
assert ms("ReadMft()", "self") == 0 and abs(ms("ReadMft()", "total") - 240) < 1e-6
assert abs(ms("Main()", "total") - 1240) < 1e-6
for name in f:
    assert "_TIME" not in name and "READIED" not in name and \
        not name.startswith("DiskFile"), name
PY
# A real wait regression: 100 waits of 2 ms become 100 of 4 ms. Named, by
# its kind, exit 1.
mk "$T/c1.json" 100 2 1000
mk "$T/c2.json" 100 4 1000
expect_exit 1 pd "$T/c1.json" "$T/c2.json"
expect_grep "^regressed: ReadMft() (blocked) \[app\] +100.0 % (self)" "$T/out"
# Five waits of 400 ms become five of 560 ms: +40 %, 2 000 -> 2 800 ms
# counted as samples, which as samples would be a certain regression; as
# five waits a side, a fifth of a wait's spread, it is undecided, and so
# is ReadMft()'s total, which is those waits alone.
mk "$T/v1.json" 5 400 20000
mk "$T/v2.json" 5 560 20000
expect_exit 0 pd -f json "$T/v1.json" "$T/v2.json"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "five waits: $(head -c 400 "$T/out")"; fi
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: x for x in d["functions"]}
for name in ("ReadMft() (blocked)", "ReadMft()"):
    for k in ("self", "total"):
        m = f[name][k]
        assert m["status"] not in ("regressed", "improved"), (name, k, m)
assert abs(f["ReadMft() (blocked)"]["self"]["delta_pct"] - 40) < 1e-6
PY
# Waiting for a CPU once readied is the machine's load more than the
# program's (statistics.md, "Waiting time": between runs of one build it
# moved by factors of 2 to 7 on a loaded machine): 200 ready waits of 1
# ms become 200 of 5 ms, the blocked waits and the CPU unchanged. One
# pair a side calls neither the ready waits a regression nor their
# caller's total, two thirds of it those waits; the same change of the
# blocked waits it does call.
mk "$T/r1.json" 100 2 1000 0 0 200 1
mk "$T/r2.json" 100 2 1000 0 0 200 5
expect_exit 0 pd -f json "$T/r1.json" "$T/r2.json"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "ready waits: $(head -c 400 "$T/out")"; fi
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: x for x in d["functions"]}
r = f["ReadMft() (ready)"]["self"]
assert r["status"] not in ("regressed", "improved"), r
assert abs(r["delta_pct"] - 400) < 1e-6, r
for k in ("self", "total"):
    assert f["ReadMft()"][k]["status"] not in ("regressed", "improved"), f["ReadMft()"]
assert abs(f["ReadMft()"]["total"]["delta_pct"] - 200) < 1e-6
PY
mk "$T/b1.json" 200 1 1000
mk "$T/b2.json" 200 5 1000
expect_exit 1 pd "$T/b1.json" "$T/b2.json"
expect_grep "^regressed: ReadMft() (blocked) \[app\] +400.0 % (self)" "$T/out"
# A CPU function whose name merely ends so is not a ready wait: judged
# exactly as the same function under another name.
for k in 1 2; do
	{
		echo "main;work(ready) $((k * 4000))"
		for f in a b c d e f; do echo "main;f_$f $((3000 + k * 7 + ${#f} * 311))"; done
	} >"$T/n$k.folded"
	sed 's/(ready)/_plain/' "$T/n$k.folded" >"$T/m$k.folded"
done
pd -f json "$T/n1.folded" "$T/n2.folded" >"$T/n.json" 2>/dev/null
pd -f json "$T/m1.folded" "$T/m2.folded" >"$T/m.json" 2>/dev/null
if python3 - "$T/n.json" "$T/m.json" <<'PY'; then ok; else not_ok "a CPU function named *(ready)"; fi
import json, sys
n, m = (json.load(open(p)) for p in sys.argv[1:])
a = {f["function"]: f["self"] for f in n["functions"]}["work(ready)"]
b = {f["function"]: f["self"] for f in m["functions"]}["work_plain"]
for k in ("status", "p", "mde_pct", "ci_low", "ci_high"):
    assert a[k] == b[k], (k, a[k], b[k])
PY
finish
