#!/bin/sh
# Callgrind recordings of the shapes a reader must get right
# (fixtures/callgrind/README.md says how they were made): C++ at -O2 with
# templates, std::sort with a lambda and std::map inlined, with 13 events,
# instruction positions and names written out; three threads recorded
# with --separate-threads=yes (a file a thread) and without (one file);
# recursion with callgrind's levels (descend'2) and without them. Every
# function's self cost for every event, and its total, equal what
# callgrind_annotate says of the same file, but where the definitions
# differ (docs/formats.md, "Callgrind: the call tree"): clone in a file
# of all threads, fold and step (two functions that call each other only
# in different stacks), and every recursive function without levels,
# where callgrind_annotate counts the nested calls again and perfdiff
# counts each stack once: there a total is the calls into the recursion
# from outside it, which callgrind_annotate --tree=caller lists.
. "$(dirname "$0")/lib.sh"
FX=$PD_ROOT/fixtures/callgrind
ANNOTATE=$PD_ROOT/tests/tools/valgrind_annotate.py
MATCH=$PD_ROOT/tests/tools/annotate_match.py
annotate=0
command -v callgrind_annotate >/dev/null 2>&1 && annotate=1

# match FILE [annotate_match.py options] [-- EVENT...]: every event of the
# file's events: line unless some are given
match() {
	f=$1
	shift
	opts=
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		opts="$opts $1"
		shift
	done
	[ $# -gt 0 ] && shift
	gunzip -c "$f" >"$T/in" 2>/dev/null || cp "$f" "$T/in"
	evs=$*
	[ -n "$evs" ] || evs=$(sed -n 's/^events: *//p' "$T/in" | head -1)
	for e in $evs; do
		if ! (cd "$T" && python3 "$ANNOTATE" callgrind in "$e") >"$T/ref.json"; then
			not_ok "callgrind_annotate on $f ($e)"
			continue
		fi
		pd show -f json --event "$e" "$f" >"$T/ours.json" 2>"$T/err" ||
			{ not_ok "$f ($e): $(head -c 300 "$T/err")"; continue; }
		# shellcheck disable=SC2086
		if python3 "$MATCH" $opts "$T/ours.json" "$T/ref.json" >"$T/why"; then ok; else
			not_ok "$f ($e): $(cut -c1-200 "$T/why")"
		fi
	done
}

# callers_outside FILE FUNCTION MEMBER...: the inclusive cost of the calls
# into FUNCTION from functions other than the MEMBERs (its recursion), as
# callgrind_annotate --tree=caller lists them
callers_outside() {
	f=$1 fn=$2
	shift 2
	gunzip -c "$f" >"$T/tree.in"
	(cd "$T" && callgrind_annotate --tree=caller --inclusive=yes --auto=no \
		--threshold=100 tree.in) | python3 -c '
import re, sys
fn, members = sys.argv[1], set(sys.argv[2:])
calls, total = [], None
for line in sys.stdin:
    m = re.match(r"^\s*([0-9,]+) \([ 0-9.]+%\)\s+(<|\*)\s+\S*:(\S+)", line)
    if not m:
        if not line.strip():
            calls = []
        continue
    if m.group(2) == "<":
        calls.append((int(m.group(1).replace(",", "")), m.group(3)))
    elif m.group(3) == fn and total is None:
        total = sum(v for v, c in calls if c not in members)
print(total)
' "$fn" "$@"
}

# total_of FILE FUNCTION: perfdiff's total of the function
total_of() {
	pd show -f json "$1" 2>/dev/null | python3 -c '
import json, sys
print(sum(f["total"] for f in json.load(sys.stdin)["functions"] if f["function"] == sys.argv[1]))
' "$2"
}

if [ $annotate = 1 ]; then
	match "$FX/cxx.callgrind.gz" --total
	match "$FX/cxx-instr.callgrind.gz" --total
	match "$FX/cxx-nostr.callgrind.gz" --total
	for i in 01 02 03; do
		match "$FX/threads-$i.callgrind.gz" --total
	done
	match "$FX/threads-all.callgrind.gz" --total --skip clone
	match "$FX/recurse.callgrind.gz" --total --skip fold --skip step
	match "$FX/recurse-flat.callgrind.gz"
	# each stack once: the calls from outside the recursion
	for spec in "descend descend" "ping ping pang pong"; do
		# shellcheck disable=SC2086
		want=$(callers_outside "$FX/recurse-flat.callgrind.gz" $spec)
		got=$(total_of "$FX/recurse-flat.callgrind.gz" "${spec%% *}")
		[ -n "$want" ] && [ "$want" = "$got" ] && ok ||
			not_ok "${spec%% *} total without levels: $got, want $want"
	done
else
	echo "note: callgrind_annotate not found: the comparisons with it are skipped"
fi

# The numbers callgrind_annotate gave when the fixtures were recorded
# (fixtures/callgrind/README.md), without it.
for f in cxx threads-02 threads-all recurse recurse-flat; do
	pd show -f json "$FX/$f.callgrind.gz" >"$T/$f.json" 2>"$T/$f.err" ||
		not_ok "$f: $(cat "$T/$f.err")"
done
if python3 - "$T" <<'PY'; then ok; else not_ok "numbers recorded with the fixtures"; fi
import json, os, sys
def fs(name):
    d = json.load(open(os.path.join(sys.argv[1], name + ".json")))
    out = {}
    for f in d["functions"]:
        s, t = out.get(f["function"], (0, 0))
        out[f["function"]] = (s + f["self"], t + (f["total"] or 0))
    return d["profile"]["total"], out
t, f = fs("cxx")
assert t == 7259910 and f["main"] == (1323327, 7259910), (t, f["main"])
sort = [k for k in f if k.startswith("void std::__introsort_loop<")]
assert len(sort) == 1 and sort[0].endswith(" [clone .constprop.0]"), sort
assert "main::{lambda(unsigned int, unsigned int)#1}" in sort[0]
assert f[sort[0]] == (3895665, 3895665), f[sort[0]]
assert f["shapes::histogram(std::vector<unsigned int, std::allocator<unsigned int> > const&, unsigned int)"] == (1363315, 1393502)
t, f = fs("threads-02")
assert t == 221134 and f["mixer"] == (210017, 220861) and "scanner" not in f, f.get("mixer")
t, f = fs("threads-all")
assert t == 734814 and f["mixer"] == (210017, 220863) and f["scanner"] == (350013, 375080)
assert f["clone"][1] == 596525, f["clone"]
for name in ("recurse", "recurse-flat"):
    t, f = fs(name)
    assert t == 1686063 and f["descend"] == (66600, 1132600), (name, f["descend"])
    assert f["ping"] == (10800, 298800), f["ping"]
t, f = fs("recurse")
assert f["pang"][1] == 292100 and f["pong"][1] == 280400, (f["pang"], f["pong"])
PY
# a file of one thread says so; a file of all threads does not
expect_grep "threads-02.callgrind.gz: thread 2 of a run recorded with --separate-threads=yes: this file holds that thread alone" "$T/threads-02.err"
expect_no_grep "thread\|do not add up" "$T/threads-all.err"
expect_no_grep "do not add up" "$T/recurse.err"

# Fresh recordings, when valgrind and a C++ compiler are here: the same
# program under callgrind's default file names, one file a thread.
if [ $annotate = 1 ] && command -v valgrind >/dev/null 2>&1 &&
	command -v c++ >/dev/null 2>&1 && command -v cc >/dev/null 2>&1; then
	mkdir -p "$T/fresh"
	c++ -O2 -g -o "$T/fresh/shapes" "$FX/shapes.cpp" &&
		cc -O1 -g -pthread -o "$T/fresh/threads" "$FX/threads.c" ||
		not_ok "builds"
	(cd "$T/fresh" && valgrind -q --tool=callgrind --dump-instr=yes \
		--callgrind-out-file=shapes.out ./shapes >/dev/null &&
		valgrind -q --tool=callgrind --separate-threads=yes ./threads >/dev/null)
	match "$T/fresh/shapes.out" --total -- Ir
	n=0
	for f in "$T"/fresh/callgrind.out.*-0[1-3]; do
		[ -f "$f" ] || continue
		n=$((n + 1))
		match "$f" --total -- Ir
		expect_exit 0 pd show "$f"
		expect_grep "thread $n of a run recorded with --separate-threads=yes" "$T/err"
	done
	[ $n = 3 ] && ok || not_ok "$n files of threads, want 3: $(ls "$T/fresh")"
else
	echo "valgrind, callgrind_annotate or a compiler not found: fresh recordings skipped"
fi
finish
