#!/bin/sh
# A wait's time is not moved by the machine's speed, so the rule that a
# function judged as it is must have its share follow its move
# (docs/statistics.md, "Several runs per side") does not hold it back.
# Ten CPU functions and one sleep, four perf script runs a side written
# here (offcpu.perf.txt's layout, docs/formats.md "Off-CPU time"): on
# the candidate side every CPU function takes 30 % more and the sleeps
# 20 % more. The sleep's share of the run fell (the CPU grew more), and
# the share rule called it undecided; it is a regression, +20 %. With
# the sleeps unchanged, it is not called changed.
. "$(dirname "$0")/lib.sh"
# gen OUT SEED CPU WAIT: 300 samples of 1 ms in each of fA..fJ times
# CPU, and 20 sleeps of 5 ms times WAIT, each within 3 % (seeded)
gen() {
	python3 - "$@" <<'PY'
import random, sys
out, seed, cs, ws = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
rnd = random.Random(seed)
fns = ["f" + c for c in "ABCDEFGHIJ"]
n = {f: int(round(300 * cs * rnd.gauss(1, 0.03))) for f in fns}
w = [5 * ws * rnd.gauss(1, 0.03) for _ in range(20)]
t, o = 1.0, []
for i in range(20):
    for f in fns:
        for _ in range(n[f] // 20 + (1 if i < n[f] % 20 else 0)):
            o.append("app   100 [000] %12.6f:    1000000 cpu-clock: \n"
                     "\t            1100 %s+0x10 (/opt/app/app)\n"
                     "\t            1000 main+0x20 (/opt/app/app)\n\n" % (t, f))
            t += 0.001
    o.append("app   100 [000] %12.6f: sched:sched_switch: prev_comm=app prev_pid=100"
             " prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120\n"
             "\tffffffff81001000 __schedule+0x628 ([kernel.kallsyms])\n"
             "\tffffffff81001200 do_nanosleep+0x5e ([kernel.kallsyms])\n"
             "\t            1200 wait_timer+0x15 (/opt/app/app)\n"
             "\t            1000 main+0x20 (/opt/app/app)\n\n"
             "app   100 %12.6f: PERF_RECORD_SWITCH OUT\n" % (t, t + 0.00001))
    t += w[i] / 1000.0
    o.append("app   100 %12.6f: PERF_RECORD_SWITCH IN\n" % t)
open(out, "w").write("".join(o))
PY
}
for i in 1 2 3 4; do
	gen "$T/a$i.txt" "$i" 1 1
	gen "$T/b$i.txt" "$((i + 10))" 1.3 1.2
	gen "$T/m$i.txt" "$((i + 20))" 1.3 1
done
side() {
	for i in 1 2 3 4; do printf ' %s %s/%s%s.txt' "$1" "$T" "$2" "$i"; done
}
# shellcheck disable=SC2046
expect_exit 1 pd -f json $(side -b a) $(side -c b)
if python3 - "$T/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: x["self"] for x in d["functions"]}
w = f["wait_timer (blocked)"]
assert w["status"] == "regressed" and 15 < w["delta_pct"] < 25, w
assert all(f["f" + c]["status"] != "regressed" for c in "ABCDEFGHIJ"), f
PY
then ok; else not_ok "sleeps 20 % longer beside a slower CPU not found"; fi
# shellcheck disable=SC2046
pd -f json $(side -b a) $(side -c m) >"$T/out" 2>"$T/err" || :
if python3 - "$T/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: x["self"] for x in d["functions"]}
assert f["wait_timer (blocked)"]["status"] == "same", f["wait_timer (blocked)"]
PY
then ok; else not_ok "unchanged sleeps called changed"; fi
finish
