#!/bin/sh
# A machine-wide shift (statistics.md, "Machine-wide shifts"): every
# function of an identical build 28 % slower (a loaded machine) flags no
# function and names the shift; a function 30 % slower with the machine
# steady is found; and the same function on top of the shift is found at
# its own +30 %, beyond the shift. Counts are exact multiples, so the
# expected numbers are the ratios written here.
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
# the total is the whole program, judged at 8 % between runs: not shown
assert d["total"]["status"] == "inconclusive" and abs(d["total"]["ratio"] - 1.28) < 1e-3, d["total"]
PY
expect_exit 1 pd --sample-weight 1 -f json "$T/a.folded" "$T/f0.folded"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "one function, the machine steady"; fi
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: x for x in d["functions"]}
assert d["dispersion"]["program_shift"]["ratio"] is None, d["dispersion"]["program_shift"]
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
# Three times the work everywhere is no machine's doing (a machine moves a
# run by 40 % at the most seen): not taken out, every function regressed.
expect_exit 1 pd --sample-weight 1 -f json "$T/a.folded" "$T/thrice.folded"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "more than a machine's shift"; fi
import json, sys
d = json.load(open(sys.argv[1]))
assert d["dispersion"]["program_shift"]["ratio"] is None, d["dispersion"]
reg = [x["function"] for x in d["functions"] if x["self"]["status"] == "regressed"]
assert len(reg) == 10, reg
assert any(w.startswith("most of the program's functions moved together, by +200 %") for w in d["warnings"]), d["warnings"]
PY
# The text report names the shift and both variations assumed.
expect_exit 0 pd --sample-weight 1 "$T/a.folded" "$T/loaded.folded"
expect_grep "^warning: the whole program moved +28.0 % (10 of 10 well-sampled functions alike): a machine-wide shift" "$T/out"
expect_grep "run-to-run variation assumed 2 % a function, 8 % the whole program" "$T/out"
expect_grep "^inconclusive: no function changed beyond the threshold; total +28.0 % (CI .*), 10 of 10 functions alike: machine-wide?$" "$T/out"
finish
