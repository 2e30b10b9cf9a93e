#!/bin/sh
# A machine-wide shift (statistics.md, "Machine-wide shifts"): every
# function of an identical build 28 % slower (a loaded machine) flags no
# function and names the shift; a function 30 % slower with the machine
# steady is found; and the same function on top of the shift is found at
# its own +30 %, beyond the shift. Counts are exact multiples, so the
# expected numbers are the ratios written here. The whole program (the
# profile total, main) is judged against no shift, at 20 % run-to-run
# variation.
. "$(dirname "$0")/lib.sh"
python3 - "$T" <<'PY'
import sys
d = sys.argv[1]
w = [3000, 2000, 1500, 1000, 800, 600, 400, 300, 200, 100]
def write(name, scale, plant=None, by=1.0):
    with open("%s/%s.folded" % (d, name), "w") as f:
        for i, c in enumerate(w):
            k = by if i == plant else 1.0
            f.write("main;f%d %d\n" % (i, round(c * scale * k)))
write("a", 1)
write("loaded", 1.28)
write("f0", 1, 0, 1.3)
write("f1loaded", 1.28, 1, 1.3)
write("thrice", 3)
PY
expect_exit 0 pd --sample-weight 1 -f json "$T/a.folded" "$T/loaded.folded"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "a loaded machine"; fi
import json, sys
d = json.load(open(sys.argv[1]))
changed = [(x["function"], k) for x in d["functions"] for k in ("self", "total")
           if x[k]["status"] in ("regressed", "improved")]
assert changed == [], changed
s = d["dispersion"]["program_shift"]
assert abs(s["ratio"] - 1.28) < 1e-3 and s["alike"] == 10 and s["voters"] == 10, s
assert any(w.startswith("the whole program moved +28.0 % (10 of 10") for w in d["warnings"]), d["warnings"]
# beyond the shift, each function moved by nothing
assert all(abs(x["self"]["ratio"] - 1) < 2e-3 for x in d["functions"] if x["function"] != "main")
# the total is the whole program, judged at 20 % between runs: +28 % is
# ln 1.28 / sqrt(2 (0.2)^2) = 0.87 standard errors, not shown
assert d["total"]["status"] == "inconclusive" and abs(d["total"]["ratio"] - 1.28) < 1e-3, d["total"]
PY
expect_exit 1 pd --sample-weight 1 -f json "$T/a.folded" "$T/f0.folded"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "one function, the machine steady"; fi
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: x for x in d["functions"]}
# the machine did not move: nine of the ten functions alike at no shift
s = d["dispersion"]["program_shift"]
assert abs(s["ratio"] - 1) < 1e-9 and s["alike"] == 9 and s["voters"] == 10, s
assert not any(w.startswith("the whole program moved") for w in d["warnings"]), d["warnings"]
assert f["f0"]["self"]["status"] == "regressed", f["f0"]["self"]
assert abs(f["f0"]["self"]["delta_pct"] - 30) < 0.01
assert [x["function"] for x in d["functions"] if x["self"]["status"] == "regressed"] == ["f0"]
PY
expect_exit 1 pd --sample-weight 1 -f json "$T/a.folded" "$T/f1loaded.folded"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "one function on top of the shift"; fi
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: x for x in d["functions"]}
assert abs(d["dispersion"]["program_shift"]["ratio"] - 1.28) < 1e-3 and d["dispersion"]["program_shift"]["alike"] == 9, d["dispersion"]["program_shift"]
s = f["f1"]["self"]
assert s["status"] == "regressed" and abs(s["delta_pct"] - 30) < 0.2 and abs(s["ratio"] - 1.3) < 2e-3, s
# its recorded weights stay as recorded
assert s["baseline"] == 2000 and s["candidate"] == 3328, s
assert [x["function"] for x in d["functions"] if x["self"]["status"] == "regressed"] == ["f1"]
PY
# Three times the work everywhere: more than a machine moves a run (x2
# at most), so the program's own work (a loop count, a larger input):
# no shift is taken out, and each function is judged as it is, against
# the whole program's 20 % variation: ln 3 / sqrt(2 (0.2)^2) = 3.9
# standard errors, its 95 % interval from 3 exp(-1.96 * 0.283) = 1.72.
expect_exit 1 pd --sample-weight 1 -f json "$T/a.folded" "$T/thrice.folded"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "all of the program three times"; fi
import json, sys
d = json.load(open(sys.argv[1]))
s = d["dispersion"]["program_shift"]
assert s["ratio"] is None and s["alike"] == 0 and s["voters"] == 10, s
reg = sorted(x["function"] for x in d["functions"] if x["self"]["status"] == "regressed")
assert reg == ["f%d" % i for i in range(10)], reg
f0 = [x for x in d["functions"] if x["function"] == "f0"][0]["self"]
assert abs(f0["ratio"] - 9000.5 / 3000.5) < 1e-9 and f0["shift_ratio"] is None, f0
assert 1.70 < f0["ci_low"] < 1.74, f0
assert d["total"]["status"] == "regressed" and abs(d["total"]["ratio"] - 3) < 1e-3, d["total"]
assert any(w.startswith("most of the program's functions moved together, by +200 %") for w in d["warnings"]), d["warnings"]
PY
# Two hot functions, one of them changed: parse +40 % (4000 -> 5600),
# hash steady (1400 -> 1390). Each is the other's reference; hash's own
# time did not move, so it is judged as it is, not "improved -29 %"
# beyond parse (the one that moved more, by more than
# twice the noise of the difference, changed).
printf 'main;parse 4000\nmain;hash 1400\nmain;sort 60\n' >"$T/h1.folded"
printf 'main;parse 5600\nmain;hash 1390\nmain;sort 58\n' >"$T/h2.folded"
expect_exit 1 pd --sample-weight 1 -f json "$T/h1.folded" "$T/h2.folded"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "two functions: the steady one called changed"; fi
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: x["self"] for x in d["functions"]}
assert f["parse"]["status"] == "regressed", f["parse"]
assert f["hash"]["status"] not in ("regressed", "improved"), f["hash"]
assert f["hash"]["shift_ratio"] is None, f["hash"]
PY
# A few hundred samples: every function is alike with parse, most of
# the program, so the weighted shift reads +24 % (4 of 4 alike); without
# parse the others moved +1 % or less (170 -> 183, 60 -> 62, 50 -> 48):
# parse's own change, not a machine's, and not named as one.
printf 'main;parse 440\nmain;build 170\nmain;check 60\nmain;gen 50\n' >"$T/n1.folded"
printf 'main;parse 606\nmain;build 183\nmain;check 62\nmain;gen 48\n' >"$T/n2.folded"
expect_exit 0 pd --sample-weight 1 "$T/n1.folded" "$T/n2.folded"
expect_no_grep "whole program moved\|machine-wide" "$T/out"
# The text report names the shift and both variations assumed.
expect_exit 0 pd --sample-weight 1 "$T/a.folded" "$T/loaded.folded"
expect_grep "^warning: the whole program moved +28.0 % (10 of 10 well-sampled functions alike): a machine-wide shift" "$T/out"
expect_grep "run-to-run variation 2 % a function, 20 % the whole program; functions judged beyond the program's shift (+28.0 %, 10 of 10 well-sampled functions alike)" "$T/out"
expect_grep "^inconclusive: no function changed beyond the threshold; total +28.0 % (CI .*), 10 of 10 functions moved +28.0 % alike: machine-wide?$" "$T/out"
finish
