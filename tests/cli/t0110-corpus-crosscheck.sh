#!/bin/sh
# The perf script importer against an independent reading of the same data:
# FlameGraph's and inferno's own collapsed outputs (corpus/folded, written by
# stackcollapse-perf.pl / inferno-collapse-perf) summed per function by
# tests/tools/folded_funcs.py. Known, documented differences of the
# collapsers are applied to our names (argument lists cut at '(', ';' as ':', Java's leading 'L' dropped).
. "$(dirname "$0")/lib.sh"
need_corpus
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
RUST = {"$SP$": "@", "$BP$": "*", "$RF$": "&", "$LT$": "<", "$GT$": ">",
        "$LP$": "(", "$RP$": ")", "$C$": ",", "$u7e$": "~", "$u20$": " ",
        "$u27$": "'", "$u5b$": "[", "$u5d$": "]", "$u7b$": "{", "$u7d$": "}",
        "$u3b$": ";", "$u2b$": "+", "$u22$": '"'}
def unrust(n):
    # Rust's legacy escapes, undone by perfdiff and left by the collapser
    if not any(e in n for e in RUST):
        return n
    n = re.sub(r"\$(SP|BP|RF|LT|GT|LP|RP|C|u[0-9a-f]{2})\$",
               lambda m: RUST.get(m.group(0), m.group(0)), n)
    return n.replace("..", "::")
def tidy(n):
    n = unrust(n)
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

# A capture diffed against the folded file a collapser made of it: no
# function added or removed, nothing changed. The collapsers' process-name
# root ("noploop;...", "dd-?/29776;..."), cut argument lists, Java names
# without 'L' and ';', and Rust names with their escapes undone used to
# make 1 to 19 functions added and as many removed.
same_capture() { # PERF FOLDED
	expect_exit 0 pd -f json "$C/perf-script/$1" "$C/folded/$2"
	if python3 - "$T/out" <<'PY'; then ok; else not_ok "$1 vs $2"; fi
import json, sys
d = json.load(open(sys.argv[1]))
odd = [(f["function"], f["total"]["status"]) for f in d["functions"]
       if f["total"]["status"] in ("added", "removed")]
assert not odd, odd[:6]
assert d["verdict"] in ("same", "inconclusive"), d["verdict"]
PY
}
same_capture FlameGraph-perf-cycles-instructions-01.txt FlameGraph-perf-cycles-instructions-01-collapsed-all.txt
same_capture inferno-go-stacks.txt inferno-go-stacks-collapsed.txt
same_capture inferno-single-event.txt inferno-single-event-collapsed.txt
same_capture inferno-cpp-stacks-std-function.txt inferno-cpp-stacks-std-function-collapsed.txt
same_capture FlameGraph-perf-rust-Yamakaky-dcpu.txt FlameGraph-perf-rust-Yamakaky-dcpu-collapsed-all.txt
same_capture inferno-java-inline.txt inferno-java-inline-collapsed.txt
for v in all pid tid; do
	same_capture FlameGraph-perf-dd-stacks-01.txt FlameGraph-perf-dd-stacks-01-collapsed-$v.txt
done
expect_exit 0 pd "$C/perf-script/inferno-java-inline.txt" "$C/folded/inferno-java-inline-collapsed.txt"
expect_grep "tidied as collapsers write them (no leading 'L' in Java names)" "$T/err"
expect_grep "first frame of every stack is a process name" "$T/err"

# Rust's legacy mangling, written by hand: the whole symbol demangled
# (hash left out, "_$" losing its '_'), perf's half-demangled escapes
# undone; a C++ _ZN name without a hash is not Rust and stays.
printf 'main;_ZN4core3ptr13drop_in_place17h0123456789abcdefE 3\nmain;gc::GcBox$LT$T$GT$::new::_$u7b$$u7b$closure$u7d$$u7d$::h0123456789abcdef 2\nmain;_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17h1111111111111111E 1\nmain;_ZN3foo3barEv 1\nmain;_$LT$alloc..vec..Vec$LT$T$GT$$GT$::resize 1\nmain;Outer$Inner 1\n' >"$T/rust.folded"
expect_exit 0 pd show -f json "$T/rust.folded"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "Rust legacy names"; fi
import json, sys
f = {x["function"]: x["self"] for x in json.load(open(sys.argv[1]))["functions"]}
want = {"core::ptr::drop_in_place": 3, "gc::GcBox<T>::new::_{{closure}}": 2,
        "std::rt::lang_start::{{closure}}": 1, "_ZN3foo3barEv": 1,
        "_<alloc::vec::Vec<T>>::resize": 1, "Outer$Inner": 1, "main": 0}
assert f == want, f
PY
finish
