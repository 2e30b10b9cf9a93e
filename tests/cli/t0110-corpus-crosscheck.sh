#!/bin/sh
# The perf script importer against an independent reading of the same data:
# FlameGraph's and inferno's own collapsed outputs (corpus/folded, written by
# stackcollapse-perf.pl / inferno-collapse-perf) summed per function by
# tests/tools/folded_funcs.py. Known, documented differences of the
# collapsers are applied to our names (argument lists cut at '(', ';' as ':', Java's leading 'L' dropped).
. "$(dirname "$0")/lib.sh"
have_corpus || { echo "corpus not found at $PD_CORPUS: skipped"; exit 77; }
C=$PD_CORPUS

check() {
	perf=$1 folded=$2 opts=$3
	pd show -f json $opts "$C/perf-script/$perf" >"$T/ours.json" 2>/dev/null
	python3 "$PD_ROOT/tests/tools/folded_funcs.py" "$C/folded/$folded" \
		--skip-root 1 --strip-annotations >"$T/ref.json"
	if python3 - "$T/ours.json" "$T/ref.json" "${4:-0}" <<'PY'
import json, re, sys
ours = json.load(open(sys.argv[1]))
ref = json.load(open(sys.argv[2]))
dropped = float(sys.argv[3])  # weight the collapser dropped (see below)
def tidy(n):
    # stackcollapse-perf's tidy_generic: cut argument lists, no quotes
    if "(" in n and ".(*" not in n:
        n = n[: n.index("(")]
    n = n.replace(";", ":").replace('"', "").replace("'", "")
    if n.startswith("L") and "/" in n:  # tidy_java: Ljava/lang/X; -> java/lang/X
        n = n[1:]
    n = re.sub(r"::h[0-9a-f]{16}$", "", n)
    n = re.sub(r"\.(isra|constprop|part|cold|llvm|lto_priv)\.\d+$", "", n)
    return n
o = {}
for f in ours["functions"]:
    s = o.setdefault(tidy(f["function"]), [0.0, 0.0])
    s[0] += f["self"]
r = {}
for k, (s, t) in ref["functions"].items():
    r.setdefault(tidy(k), [0.0, 0.0])[0] += s
tot_o, tot_r = ours["profile"]["total"], ref["total"]
assert abs(tot_o - tot_r - dropped) < 1e-6 * tot_o, (tot_o, tot_r, dropped)
bad = []
for k in set(o) | set(r):
    a, b = o.get(k, [0, 0])[0], r.get(k, [0, 0])[0]
    if abs(a - b) > 1e-6 * max(1, a, b):
        bad.append((k, a, b))
allowed = abs(dropped) * 2 + 1e-9
extra = sum(abs(a - b) for _, a, b in bad)
assert extra <= allowed, sorted(bad)[:8]
PY
	then ok; else not_ok "$perf vs $folded"; fi
}
# Exact agreement.
check FlameGraph-perf-cycles-instructions-01.txt FlameGraph-perf-cycles-instructions-01-collapsed-all.txt ""
check inferno-go-stacks.txt inferno-go-stacks-collapsed.txt ""
check inferno-single-event.txt inferno-single-event-collapsed.txt ""
check inferno-cpp-stacks-std-function.txt inferno-cpp-stacks-std-function-collapsed.txt ""
check FlameGraph-perf-rust-Yamakaky-dcpu.txt FlameGraph-perf-rust-Yamakaky-dcpu-collapsed-all.txt ""
check inferno-java-inline.txt inferno-java-inline-collapsed.txt ""
# The file has 11 sample headers (counted with grep below); stackcollapse
# drops the last one, whose only frame is [unknown] at address 0x246.
n=$(grep -c 'cpu-clock:' "$C/perf-script/FlameGraph-perf-dd-stacks-01.txt")
[ "$n" -eq 11 ] && ok || not_ok "dd header count $n"
check FlameGraph-perf-dd-stacks-01.txt FlameGraph-perf-dd-stacks-01-collapsed-all.txt "" 10101010
finish
