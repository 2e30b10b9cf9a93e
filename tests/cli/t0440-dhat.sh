#!/bin/sh
# DHAT: the corpus files against an independent reading
# (tests/tools/dhat_funcs.py), a fixture counted by hand for several
# measures, a real valgrind --tool=dhat run of a program built twice with
# a planted allocation change, exact-count verdicts, and bad input.
. "$(dirname "$0")/lib.sh"
DH=$PD_CORPUS/dhat
FX=$PD_ROOT/fixtures/dhat
# the allocator, for both readers: Rust's alloc crate, dhat, libc, zig
ALLOC='(malloc|<?alloc::.*|dhat::.*|mem\.Allocator\..*|heap\..*|rawAlloc|allocAdvancedWithRetAddr)( \(.*)?'

check_numbers() { # FILE KEY METRIC
	pd show -f json --metric "$3" --alloc-frames "^($ALLOC)\$" "$1" >"$T/ours.json"
	python3 "$PD_ROOT/tests/tools/dhat_funcs.py" "$1" "$2" "$ALLOC" >"$T/ref.json"
	if python3 - "$T/ours.json" "$T/ref.json" <<'PY'
import json, sys
ours, ref = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert ours["profile"]["format"] == "dhat"
assert ours["profile"]["total"] == ref["total"], (ours["profile"]["total"], ref["total"])
o = {}
for f in ours["functions"]:
    s, t = o.get(f["function"], (0, 0))
    o[f["function"]] = (s + f["self"], t + f["total"])
assert set(o) == set(ref["functions"]), sorted(set(o) ^ set(ref["functions"]))[:5]
for k, (s, t) in ref["functions"].items():
    assert o[k] == (s, t), (k, o[k], (s, t))
PY
	then ok; else not_ok "numbers of $1 ($3)"; fi
}

if corpus_part "the DHAT corpus checks"; then
	for f in "$DH"/*; do
		check_numbers "$f" tb bytes
		check_numbers "$f" tbk blocks
	done
	for f in "$DH/valgrind-dhat-heap-zig.dhat.out.json" \
		"$DH/dhat-rs-heap-http-server.json"; do
		check_numbers "$f" gb peak-bytes
		check_numbers "$f" eb end-bytes
	done
	check_numbers "$DH/valgrind-dhat-heap-zig.dhat.out.json" rb reads
	if have_extra dhat/dhat-rs-ad-hoc-playground.json; then
		expect_exit 2 pd show --metric peak-bytes "$PD_CORPUS/dhat/dhat-rs-ad-hoc-playground.json"
		expect_grep 'pps\[0\]: this program point has no "gb" (peak-bytes): ad-hoc' "$T/err"
	fi
	# the default allocator list: self lands in the program, not in alloc
	pd show -f json "$DH/valgrind-dhat-heap-zig.dhat.out.json" >"$T/zig.json"
	if python3 - "$T/zig.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: x for x in d["functions"]}
assert not any(x["self"] for n, x in f.items() if n in ("malloc", "rawAlloc", "heap.rawCAlloc") or n.startswith("mem.Allocator")), f
assert f["predict"]["total"] == d["profile"]["total"] == 354704
assert d["profile"]["exporter"] == "valgrind DHAT (heap)"
PY
	then ok; else not_ok "default allocator frames (zig)"; fi
fi

# ad-hoc profiles have bytes and blocks only: a file written here in
# dhat-rs's ad-hoc shape (fixtures/dhat/ad-hoc.dhat.json), counted by
# hand: stacks are leaf first, dhat's own event frame is cut; record
# has 30 units itself and 42 with flush, which it calls (12).
expect_exit 2 pd show --metric peak-bytes "$PD_ROOT/fixtures/dhat/ad-hoc.dhat.json"
expect_grep 'pps\[0\]: this program point has no "gb" (peak-bytes): ad-hoc' "$T/err"
expect_exit 0 pd show -f json "$PD_ROOT/fixtures/dhat/ad-hoc.dhat.json"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "ad-hoc counts"; fi
import json, sys
f = {x["function"]: x for x in json.load(open(sys.argv[1]))["functions"]}
r, fl = f["ingest_demo::record"], f["ingest_demo::flush"]
assert (r["self"], r["total"]) == (30, 42), r
assert (fl["self"], fl["total"]) == (12, 12), fl
assert "dhat::ad_hoc_event" not in f, sorted(f)
PY

# The fixture, counted by hand: main -> parse_record -> inline_helper
# (same address: inlined) 1000 bytes; main -> walk -> walk 500
# (recursion counted once in total); main -> Widget::Widget() 64 under
# operator new; a zero-byte site whose function must not show up.
pd show -f json "$FX/tiny.dhat.out" >"$T/b.json"
pd show -f json --metric blocks "$FX/tiny.dhat.out" >"$T/k.json"
pd show -f json --metric gb "$FX/tiny.dhat.out" >"$T/g.json"
pd show -f json --metric end-bytes "$FX/tiny.dhat.out" >"$T/e.json"
if python3 - "$T/b.json" "$T/k.json" "$T/g.json" "$T/e.json" <<'PY'
import json, sys
b, k, g, e = (json.load(open(p)) for p in sys.argv[1:])
def fs(d):
    return {x["function"]: (x["self"], x["total"]) for x in d["functions"]}
assert fs(b) == {"main": (0, 1564), "parse_record": (0, 1000),
                 "inline_helper": (1000, 1000), "walk": (500, 500),
                 "Widget::Widget()": (64, 64)}, fs(b)
assert b["profile"]["unit"] == "bytes" and b["profile"]["total"] == 1564
assert b["profile"]["samples"] == 3
assert fs(k)["inline_helper"] == (10, 10) and fs(k)["main"] == (0, 16)
assert k["profile"]["unit"] != "bytes"
assert fs(g) == {"main": (0, 264), "parse_record": (0, 200),
                 "inline_helper": (200, 200), "Widget::Widget()": (64, 64)}, fs(g)
assert fs(e) == {"main": (0, 164), "walk": (100, 100),
                 "Widget::Widget()": (64, 64)}, fs(e)
PY
then ok; else not_ok "hand-counted DHAT fixture"; fi
# dhat-rs names the alloc crate's trait impls "<T as alloc::...>": they
# allocate on the caller's behalf and are cut like alloc's own paths
# (they kept the self of every to_vec and to_string). Counted by hand:
# 96 bytes under user::parse, 40 under user::name.
cat >"$T/rs.json" <<'JSON'
{"dhatFileVersion":2,"mode":"rust-heap","verb":"Allocated","bklt":true,
"bkacc":false,"tu":"µs","Mtu":"s","tuth":10,"cmd":"app","pid":7,"te":100,
"tg":50,"pps":[
{"tb":96,"tbk":2,"tl":10,"mb":96,"mbk":2,"gb":96,"gbk":2,"eb":0,"ebk":0,"fs":[1,2,3,4]},
{"tb":40,"tbk":1,"tl":5,"mb":40,"mbk":1,"gb":40,"gbk":1,"eb":0,"ebk":0,"fs":[1,5,6,4]}],
"ftbl":["[root]",
"0x1: alloc::alloc::alloc (alloc/src/alloc.rs:95:14)",
"0x2: <T as alloc::slice::hack::ConvertVec>::to_vec (alloc/src/slice.rs:207:25)",
"0x3: user::parse (src/main.rs:10:5)",
"0x4: main (src/main.rs:3:5)",
"0x5: <char as alloc::string::ToString>::to_string (alloc/src/string.rs:2213:9)",
"0x6: user::name (src/main.rs:20:5)"]}
JSON
expect_exit 0 pd show -f json "$T/rs.json"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "<T as alloc::...> frames cut"; fi
import json, sys
f = {x["function"]: x for x in json.load(open(sys.argv[1]))["functions"]}
assert f["user::parse"]["self"] == 96 and f["user::name"]["self"] == 40, f
assert not any(x["self"] for n, x in f.items() if " as alloc::" in n), f
PY

# a forced allocator list that matches nothing: self is the leaf frame
pd show -f json --alloc-frames '^nothing$' "$FX/tiny.dhat.out" >"$T/n.json"
if python3 - "$T/n.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: (x["self"], x["module"]) for x in d["functions"]}
assert f["malloc"] == (1500, "vgpreload_dhat-amd64-linux.so"), f
assert f["operator new(unsigned long)"][0] == 64, f
PY
then ok; else not_ok "--alloc-frames"; fi

# Exact counts: the verdict is the threshold's, said so in every output.
sed 's/"tb":500,/"tb":530,/' "$FX/tiny.dhat.out" >"$T/more.dhat.out"
expect_exit 1 pd "$FX/tiny.dhat.out" "$T/more.dhat.out"
expect_grep "regressed *self *+6.0 % *1.06 (exact).*walk" "$T/out"
expect_grep "exact counts (no sampling), judged by the threshold alone" "$T/out"
expect_exit 0 pd --threshold 10 "$FX/tiny.dhat.out" "$T/more.dhat.out"
pd -f json "$FX/tiny.dhat.out" "$T/more.dhat.out" >"$T/d.json"
if python3 - "$T/d.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["dispersion"]["method"] == "exact", d["dispersion"]
w = {f["function"]: f for f in d["functions"]}["walk"]["self"]
assert w["status"] == "regressed" and w["p"] is None and w["delta"] == 30
assert any("exact counts" in x for x in d["warnings"])
PY
then ok; else not_ok "exact-count JSON"; fi
pd -f md "$FX/tiny.dhat.out" "$T/more.dhat.out" >"$T/d.md"
expect_grep "Method: exact counts" "$T/d.md"

# Real DHAT output: parse_record allocates twice as much in the second build
if command -v valgrind >/dev/null 2>&1 && command -v cc >/dev/null 2>&1; then
	cc -O1 -g -o "$T/a1" "$FX/alloc.c" && cc -O1 -g -DMORE=2 -o "$T/a2" "$FX/alloc.c"
	valgrind --tool=dhat --dhat-out-file="$T/a1.dhat" "$T/a1" 2>/dev/null
	valgrind --tool=dhat --dhat-out-file="$T/a2.dhat" "$T/a2" 2>/dev/null
	expect_exit 1 pd "$T/a1.dhat" "$T/a2.dhat"
	expect_grep "regressed *self *+100.0 % *2.00 (exact) *256000 *512000 .*parse_record" "$T/out"
	expect_no_grep "render" "$T/out"
	expect_exit 0 pd "$T/a1.dhat" "$T/a1.dhat"
else
	echo "valgrind or cc not found: the real DHAT run is skipped"
fi

# Bad input: one line with the JSON path, exit 2
bad() { # NAME SED-EXPRESSION WANT
	sed "$2" "$FX/tiny.dhat.out" >"$T/$1.json"
	expect_exit 2 pd show "$T/$1.json"
	expect_grep "$3" "$T/err"
	expect_lines 1 "$T/err"
}
bad range 's/"fs":\[1,2,3,4\]/"fs":[1,99]/' 'pps\[0\].fs\[1\]: frame index 99 out of range (ftbl has 9 entries)'
bad strindex 's/"fs":\[6,7,4\]/"fs":[6,"x",4]/' 'pps\[2\].fs\[1\]: a frame index must be a non-negative integer'
bad count 's/"tb":1000,/"tb":"many",/' 'pps\[0\].tb: a count must be a number'
bad noftbl 's/"ftbl"/"ftbx"/' 'not a DHAT profile: no ftbl'
bad frame 's/,"0x10A700: unused (app.c:70)"/,7/' 'ftbl\[8\]: a frame must be a string'
head -c 300 "$FX/tiny.dhat.out" >"$T/cut.json"
expect_exit 2 pd show "$T/cut.json"
expect_grep "truncated JSON" "$T/err"
expect_exit 2 pd show --metric nope "$FX/tiny.dhat.out"
expect_grep "metric wants one of bytes, blocks" "$T/err"

echo "dhat: $pass passed, $failed failed"
[ "$failed" -eq 0 ]
