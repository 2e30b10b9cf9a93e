#!/bin/sh
# Callgrind and Cachegrind: the recordings of fixtures/callgrind (their
# README says how they were made) against what callgrind_annotate and
# cg_annotate say of them (tests/tools/valgrind_annotate.py), and against
# the numbers those tools gave when they were recorded; a diff of two
# builds with a planted +20 % in parse_record, judged on exact counts;
# events, parts, gzip and bzip2, sniffing by content, bad input; and the
# same on fresh recordings when valgrind and cc are here.
. "$(dirname "$0")/lib.sh"
FX=$PD_ROOT/fixtures/callgrind
ANNOTATE=$PD_ROOT/tests/tools/valgrind_annotate.py

# check_numbers TOOL FILE EVENT: every function's self, and its total
# where the tool gives one, equal to valgrind's own annotation. Unnamed
# code ([unknown]) is left out: callgrind gives each address a name of
# its own, which perfdiff sums into one function per module.
check_numbers() {
	gunzip -c "$2" >"$T/plain" 2>/dev/null || cp "$2" "$T/plain"
	(cd "$T" && python3 "$ANNOTATE" "$1" plain "$3") >"$T/ref.json" ||
		{ not_ok "$1 annotate of $2"; return; }
	pd show -f json --event "$3" "$2" >"$T/ours.json" 2>"$T/err"
	if python3 - "$T/ours.json" "$T/ref.json" <<'PY'
import json, sys
ours, ref = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert ours["profile"]["total"] == ref["total"], (ours["profile"]["total"], ref["total"])
o = {}
for f in ours["functions"]:
    s, t = o.get(f["function"], (0, 0))
    o[f["function"]] = (s + f["self"], None if f["total"] is None else t + f["total"])
r = ref["functions"]
bad = [(k, o.get(k), r.get(k)) for k in set(o) | set(r)
       if o.get(k, (0, 0))[0] != r.get(k, [0])[0]]
assert not bad, bad[:5]
bad = [(k, o.get(k), r[k]) for k in r if r[k][1] is not None
       and k != "[unknown]" and o.get(k, (0, 0))[1] != r[k][1]]
assert not bad, bad[:5]
PY
	then ok; else not_ok "numbers of $2 ($3)"; fi
}

have_annotate() {
	command -v callgrind_annotate >/dev/null 2>&1 &&
		command -v cg_annotate >/dev/null 2>&1
}

if have_annotate; then
	for f in base cand base-plain base-cache callers; do
		check_numbers callgrind "$FX/$f.callgrind.gz" Ir
	done
	for e in Dr D1mw ILmr DLmr Bc Bcm Bim; do
		check_numbers callgrind "$FX/base-cache.callgrind.gz" "$e"
	done
	for f in base cand; do
		check_numbers cachegrind "$FX/$f.cachegrind.gz" Ir
	done
	for e in I1mr D1mr DLmw; do
		check_numbers cachegrind "$FX/base.cachegrind.gz" "$e"
	done
	# callgrind_annotate reads one part: each part on its own, their self
	# costs summed. It takes the cost line after calls=0 (a call still
	# running at a dump) for self cost, so those are made calls=1 for it.
	gunzip -c "$FX/parts.callgrind.gz" | awk -v d="$T" '
		/^part:/ { n++ } { sub(/^calls=0 /, "calls=1 "); print > (d "/p" n) }'
	for i in 1 2 3; do
		(cd "$T" && python3 "$ANNOTATE" callgrind "p$i" Ir) >"$T/p$i.json"
	done
	pd show -f json "$FX/parts.callgrind.gz" >"$T/parts.json"
	if python3 - "$T/parts.json" "$T"/p1.json "$T"/p2.json "$T"/p3.json <<'PY'
import json, sys
ours = json.load(open(sys.argv[1]))
ref, total = {}, 0
for p in sys.argv[2:]:
    d = json.load(open(p))
    total += d["total"]
    for k, (s, _) in d["functions"].items():
        ref[k] = ref.get(k, 0) + s
o = {}
for f in ours["functions"]:
    o[f["function"]] = o.get(f["function"], 0) + f["self"]
assert ours["profile"]["total"] == total == 129548, (ours["profile"]["total"], total)
assert {k: v for k, v in o.items() if v} == {k: v for k, v in ref.items() if v}
PY
	then ok; else not_ok "three parts summed"; fi
else
	echo "callgrind_annotate or cg_annotate not found: the checks against them are skipped"
fi

# The numbers valgrind's tools gave when the fixtures were recorded
# (fixtures/callgrind/README.md), without them.
pd show -f json "$FX/base.callgrind.gz" >"$T/b.json"
pd show -f json "$FX/cand.callgrind.gz" >"$T/c.json"
pd show -f json "$FX/base.cachegrind.gz" >"$T/k.json"
if python3 - "$T/b.json" "$T/c.json" "$T/k.json" <<'PY'
import json, sys
b, c, k = (json.load(open(p)) for p in sys.argv[1:])
def fs(d):
    return {(x["function"], x["module"]): (x["self"], x["total"]) for x in d["functions"]}
fb, fc, fk = fs(b), fs(c), fs(k)
assert b["profile"]["total"] == 4451214 and c["profile"]["total"] == 5091214
assert fb[("parse_record", "work")] == (3210000, 3420000), fb[("parse_record", "work")]
assert fc[("parse_record", "work")] == (3850000, 4060000)
for f in (fb, fc):
    assert f[("render", "work")] == (527500, 780000)
    assert f[("hash", "work")] == (462500, 462500)
    assert f[("walk", "work")] == (100360, 100360)  # walk'2 is walk
assert fb[("main", "work")][1] == 4327431 and fc[("main", "work")][1] == 4967431
assert b["profile"]["format"] == "callgrind" and b["profile"]["event"] == "Ir"
assert b["profile"]["exporter"] == "callgrind-3.19.0"
assert k["profile"]["format"] == "cachegrind" and k["profile"]["total"] == 4454232
assert fk[("parse_record", "")][0] == 3210000, fk[("parse_record", "")]
assert fk[("walk", "")][0] == 102220
PY
then ok; else not_ok "numbers recorded with the fixtures"; fi

# The diff: parse_record's own work +20 % (3210000 -> 3850000 Ir, +19.9 %),
# exact counts, so the threshold alone decides; its callers' totals grow
# with it; nothing else changed.
expect_exit 1 pd "$FX/base.callgrind.gz" "$FX/cand.callgrind.gz"
expect_grep "regressed *self *+19.9 % *1.20 (exact) *3210000 *3850000 .*parse_record \[work\]" "$T/out"
expect_grep "exact counts (no sampling), judged by the threshold alone" "$T/out"
expect_no_grep "module .* is matched to" "$T/out"
pd -f json "$FX/base.callgrind.gz" "$FX/cand.callgrind.gz" >"$T/d.json"
if python3 - "$T/d.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["dispersion"]["method"] == "exact", d["dispersion"]
moved = {}
for f in d["functions"]:
    for m in ("self", "total"):
        if f[m] and f[m]["status"] not in ("same", "negligible"):
            moved[(f["function"], m)] = f[m]["status"]
# parse_record itself, and the totals of what calls it
callers = {"main", "(below main)", "__libc_start_main@@GLIBC_2.34", "[unknown]"}
assert moved.pop(("parse_record", "self")) == "regressed"
assert moved.pop(("parse_record", "total")) == "regressed"
assert all(m == "total" and f in callers and s == "regressed"
           for (f, m), s in moved.items()), moved
p = {f["function"]: f for f in d["functions"]}["parse_record"]["self"]
assert p["p"] is None and p["delta"] == 640000, p
assert any("exact counts (callgrind)" in w for w in d["warnings"])
PY
then ok; else not_ok "diff of the two builds"; fi
expect_exit 0 pd "$FX/base.callgrind.gz" "$FX/base.callgrind.gz"
expect_exit 0 pd --threshold 25 "$FX/base.callgrind.gz" "$FX/cand.callgrind.gz"
# cachegrind: self only, the same verdict
expect_exit 1 pd "$FX/base.cachegrind.gz" "$FX/cand.cachegrind.gz"
expect_grep "regressed *self *+19.9 % *1.20 (exact) .*parse_record" "$T/out"
expect_grep "self costs only" "$T/err"
# another event: the cache simulation's L1 data misses did not move
expect_exit 0 pd --event D1mr "$FX/base-cache.callgrind.gz" "$FX/cand-cache.callgrind.gz"
expect_grep "callgrind, D1mr" "$T/out"
expect_exit 1 pd --event Ir "$FX/base-cache.callgrind.gz" "$FX/cand-cache.callgrind.gz"

# Sniffed by content, whatever the name; plain, gzip and bzip2 alike.
gunzip -c "$FX/base.callgrind.gz" >"$T/profile"
gunzip -c "$FX/base.cachegrind.gz" >"$T/other"
pd show -f json "$T/profile" >"$T/s1.json"
expect_grep '"format":.*"callgrind"' "$T/s1.json"
pd show -f json "$T/other" >"$T/s2.json"
expect_grep '"format":.*"cachegrind"' "$T/s2.json"
if command -v bzip2 >/dev/null 2>&1; then
	bzip2 -k "$T/profile"
	pd show -f json "$T/profile.bz2" >"$T/s3.json"
	if cmp -s "$T/s1.json" "$T/s3.json" || python3 - "$T/s1.json" "$T/s3.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a["functions"] == b["functions"]
PY
	then ok; else not_ok "bzip2 reads the same"; fi
fi
pd show -f json --from cachegrind "$T/profile" >"$T/s4.json"
expect_grep '"format":.*"cachegrind"' "$T/s4.json"

# Bad input: one line naming the file and the line, exit 2.
bad() { # NAME SED-EXPRESSION WANT
	sed "$2" "$T/profile" >"$T/$1"
	expect_exit 2 pd show "$T/$1"
	expect_grep "$3" "$T/err"
	expect_lines 1 "$T/err"
}
bad cost '30s/^.*$/+3 12x/' "cost:30: a cost must be a whole number"
bad calls 's/^calls=1 3281 $/calls=one/' "calls= wants a count, not \"one\""
bad ref 's/^cfn=(590) malloc$/cfn=(99999)/' "(99999) refers to no name given before"
bad many 's/^0 1723$/0 1 2/' "more costs than the 1 events of the events: line"
# cut after a cost line that is no call's
n=$(awk 'NR > 2000 && /^[0-9]/ && prev !~ /^calls=/ { print NR; exit }
	{ prev = $0 }' "$T/profile")
head -n "$n" "$T/profile" >"$T/cut"
expect_exit 0 pd show "$T/cut"
expect_grep "no totals: line at the end, which callgrind writes last: the file may be cut short" "$T/err"
# positions: naming one position more than the cost lines hold: every
# cost would be taken for a position and read as 0, so the file is
# refused at its positions: line, and a diff against it exits 2
sed 's/^positions: line$/positions: line instr/' "$T/profile" >"$T/pos2"
if grep -q '^positions: line instr$' "$T/pos2"; then ok; else not_ok "positions line rewritten"; fi
expect_exit 2 pd show "$T/pos2"
pline=$(grep -n '^positions:' "$T/pos2" | cut -d: -f1)
expect_grep "pos2:$pline: positions: names 2 positions, and no cost line holds a number past them" "$T/err"
expect_lines 1 "$T/err"
expect_exit 2 pd "$T/profile" "$T/pos2"
# every cost 0 (a cost line still holds a number): refused too
sed 's/^\([-+0-9*]*\) [0-9][0-9]*$/\1 0/' "$T/profile" | grep -v '^calls=' >"$T/zero"
expect_exit 2 pd show "$T/zero"
expect_grep "zero: every cost of event Ir is 0 on all [0-9]* cost lines" "$T/err"
expect_exit 2 pd show --event Dx "$T/profile"
expect_grep "no event Dx on the events: line (Ir)" "$T/err"
expect_lines 1 "$T/err"

# Fresh recordings, when valgrind and cc are here: the options that
# change the file's shape, and the diff of two builds.
if command -v valgrind >/dev/null 2>&1 && command -v cc >/dev/null 2>&1 &&
	have_annotate; then
	mkdir -p "$T/a" "$T/b"
	cc -O1 -g -o "$T/a/work" "$FX/work.c" &&
		cc -O1 -g -DPARSE_PCT=120 -o "$T/b/work" "$FX/work.c"
	record() { # NAME BINARY TOOL OPTIONS...
		n=$1 bin=$2 tool=$3
		shift 3
		valgrind -q --tool="$tool" "$@" --"$tool"-out-file="$T/$n" \
			"$bin" >/dev/null 2>&1
	}
	record a.cg "$T/a/work" callgrind
	record b.cg "$T/b/work" callgrind
	record instr.cg "$T/a/work" callgrind --dump-instr=yes
	record nostr.cg "$T/a/work" callgrind --compress-strings=no
	record nopos.cg "$T/a/work" callgrind --compress-pos=no
	record cache.cg "$T/a/work" callgrind --cache-sim=yes
	record a.cache "$T/a/work" cachegrind --cache-sim=yes
	record b.cache "$T/b/work" cachegrind --cache-sim=yes
	for f in a.cg instr.cg nostr.cg nopos.cg; do
		check_numbers callgrind "$T/$f" Ir
	done
	check_numbers callgrind "$T/cache.cg" D1mr
	check_numbers cachegrind "$T/a.cache" Ir
	check_numbers cachegrind "$T/a.cache" D1mr
	expect_exit 1 pd "$T/a.cg" "$T/b.cg"
	expect_grep "regressed *self *+19.9 % *1.20 (exact) .*parse_record \[work\]" "$T/out"
	expect_no_grep "regressed *self .*render\|regressed *self .*hash\|improved" "$T/out"
	expect_exit 0 pd "$T/a.cg" "$T/a.cg"
	expect_exit 1 pd "$T/a.cache" "$T/b.cache"
	expect_grep "regressed *self *+19.9 % .*parse_record" "$T/out"
else
	echo "valgrind, cc or valgrind's annotate tools not found: fresh recordings skipped"
fi

echo "callgrind: $pass passed, $failed failed"
[ "$failed" -eq 0 ]
