#!/bin/sh
# Every output format on the demo pair; the JSON contract; atomic -o.
. "$(dirname "$0")/lib.sh"
D=$PD_ROOT/fixtures/demo
B=$D/base.perf.txt.gz
C=$D/cand.perf.txt.gz

expect_exit 1 pd -f json "$B" "$C"
cp "$T/out" "$T/diff.json"
if python3 - "$T/diff.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
keys = ["perfdiff", "baseline", "candidate", "settings", "dispersion",
        "warnings", "verdict", "headline", "total", "functions"]
assert list(d)[:len(keys)] == keys, list(d)
for side in ("baseline", "candidate"):
    for k in ("source", "format", "unit", "total", "samples", "runs"):
        assert k in d[side], (side, k)
    assert d[side]["format"] == "perf-script" and d[side]["unit"] == "ns"
s = d["settings"]
assert (s["threshold_pct"], s["min_impact_pct"], s["alpha"], s["mode"]) == (5, 0.5, 0.05, "absolute")
assert d["dispersion"]["source"] in ("default", "estimated", "history")
assert d["verdict"] == "regressed"
metric = {"baseline", "candidate", "delta", "delta_pct", "p", "q", "status",
          "ratio", "ci_low", "ci_high", "mde_pct", "unstable"}
assert metric <= set(d["total"]), set(d["total"])
f0 = d["functions"][0]
assert f0["function"] == "parse_record" and f0["module"] == "workload", f0
assert f0["self"]["status"] == "regressed"
for f in d["functions"]:
    assert metric <= set(f["self"]) and metric <= set(f["total"])
    assert f["self"]["status"] in ("regressed", "improved", "same",
                                   "inconclusive", "negligible", "added",
                                   "removed")
# sorted by self delta, largest regression first
deltas = [f["self"]["delta"] for f in d["functions"]]
assert deltas == sorted(deltas, reverse=True)
# numbers agree with themselves: delta = cand - base, beyond the shift
# the metric was judged against when there was one
shifted = 0
for f in d["functions"]:
    m = f["self"]
    r = m["shift_ratio"] if m["shift_ratio"] is not None else 1
    shifted += m["shift_ratio"] is not None
    assert abs(m["candidate"] / r - m["baseline"] - m["delta"]) < 1e-3, m
    if m["baseline"] > 0 and m["candidate"] > 0:
        assert abs((m["candidate"] / r / m["baseline"] - 1) * 100 - m["delta_pct"]) < 1e-9, m
assert shifted > 0
PY
then ok; else not_ok "JSON contract"; fi

expect_exit 1 pd -f md "$B" "$C"
head -1 "$T/out" >"$T/first"
expect_grep '^\*\*perfdiff: regressed\*\* — <code>parse&#95;record</code> <sub>workload</sub> +[0-9.]* % (self), total +[0-9.]* % (CI .*); 1 function regressed' "$T/first"
expect_grep '#### Regressions' "$T/out"
expect_grep '<details><summary>Settings and provenance' "$T/out"

expect_exit 1 pd -f folded "$B" "$C"
# stack base cand, and the columns add up to each side's total in ns
if python3 - "$T/out" "$T/diff.json" <<'PY'
import json, sys
a = b = 0.0
for line in open(sys.argv[1]):
    stack, x, y = line.rsplit(" ", 2)
    # a stack of one frame or more, none of them empty
    assert stack and all(stack.split(";")), line
    a += float(x); b += float(y)
d = json.load(open(sys.argv[2]))
assert abs(a - d["baseline"]["total"]) < 1e-3 * a, (a, d["baseline"]["total"])
assert abs(b - d["candidate"]["total"]) < 1e-3 * b
PY
then ok; else not_ok "folded output totals"; fi

# -o: written atomically, no temporary left behind, stdout empty.
expect_exit 1 pd -f json -o "$T/report.json" "$B" "$C"
expect_lines 0 "$T/out"
if cmp -s "$T/report.json" "$T/diff.json"; then ok; else not_ok "-o output differs"; fi
ls "$T" | grep -q '\.tmp\.' && not_ok "temporary file left" || ok
# A failing run leaves no file at all.
expect_exit 2 pd -f json -o "$T/none.json" "$B" "$T/missing"
[ -e "$T/none.json" ] && not_ok "half-written output" || ok
# An unwritable destination is an error, exit 2.
expect_exit 2 pd -o /nonexistent-dir/x.txt "$B" "$C"
expect_grep "cannot create" "$T/err"
# Colour: never in a pipe, always on request, not with NO_COLOR.
expect_exit 1 pd "$B" "$C"
expect_no_grep "$(printf '\033')" "$T/out"
expect_exit 1 pd --color always "$B" "$C"
expect_grep "$(printf '\033')\[31m" "$T/out"
finish
