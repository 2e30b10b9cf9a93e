#!/bin/sh
# The callgrind files of the corpus (its MANIFEST, "callgrind/"): other
# readers' test files. Those the format allows are read with every
# function's self cost, for every event of the file, and the profile's
# total equal to what callgrind_annotate says of the same file, and every
# total too where the file's calls add up; the bad ones are refused at
# the line KCachegrind's own comment in the file names (which
# callgrind_annotate names too when it stops or warns), in one line,
# exit 2.
. "$(dirname "$0")/lib.sh"
need_corpus
CG=callgrind
ANNOTATE=$PD_ROOT/tests/tools/valgrind_annotate.py
MATCH=$PD_ROOT/tests/tools/annotate_match.py
annotate=0
command -v callgrind_annotate >/dev/null 2>&1 && annotate=1
[ $annotate = 1 ] ||
	echo "note: callgrind_annotate not found: the comparisons with it are skipped"

# match NAME [--total] EVENT...: perfdiff against callgrind_annotate for
# each EVENT (valgrind_annotate.py reads the copy in $T, as it shortens
# names of the current folder).
match() {
	name=$1 tot=
	shift
	if [ "$1" = --total ]; then
		tot=--total
		shift
	fi
	have_extra "$CG/$name" || return 0
	[ $annotate = 1 ] || return 0
	cp "$PD_CORPUS/$CG/$name" "$T/in"
	for e in "$@"; do
		if ! (cd "$T" && python3 "$ANNOTATE" callgrind in "$e") >"$T/ref.json"; then
			not_ok "callgrind_annotate on $name ($e)"
			continue
		fi
		if ! pd show -f json --event "$e" "$PD_CORPUS/$CG/$name" >"$T/ours.json" 2>"$T/err"; then
			not_ok "$name ($e): $(head -c 300 "$T/err")"
			continue
		fi
		# shellcheck disable=SC2086
		if python3 "$MATCH" $tot "$T/ours.json" "$T/ref.json" >"$T/why"; then ok; else
			not_ok "$name ($e): $(cat "$T/why")"
		fi
	done
}

match speedscope-callgrind.example.log --total Instructions
match speedscope-callgrind.name-compression.log --total Instructions
match speedscope-callgrind.multiple-event-types.log --total 'Time_(10ns)' 'Memory_(bytes)'
# calls to gamma cost 20, gamma itself 10: the totals cannot be the
# file's (callgrind_annotate gives gamma the 20 of the calls, perfdiff
# its 10 and a note); self costs are
match speedscope-callgrind.cfn-reset.log Instructions

# The numbers of valgrind's manual, whose example these files write
# (main 20, func1 100, func2 700 Ir; func1 calls func2 for 300, main
# calls func1 for 400 and func2 for 400), without callgrind_annotate.
if have_extra "$CG/speedscope-callgrind.multiple-event-types.log"; then
	pd show -f json "$PD_CORPUS/$CG/speedscope-callgrind.example.log" >"$T/a.json"
	pd show -f json --event 'Memory_(bytes)' \
		"$PD_CORPUS/$CG/speedscope-callgrind.multiple-event-types.log" >"$T/b.json"
	if python3 - "$T/a.json" "$T/b.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
f = {x["function"]: (x["self"], x["total"]) for x in a["functions"]}
assert f == {"main": (20, 820), "func1": (100, 400), "func2": (700, 700)}, f
assert a["profile"]["event"] == "Instructions" and a["profile"]["total"] == 820
f = {x["function"]: (x["self"], x["total"]) for x in b["functions"]}
assert f == {"main": (15000, 38000), "func1": (15000, 20000),
             "func2": (8000, 8000)}, f
assert b["profile"]["exporter"] == "xdebug 3.0.2 (PHP 7.4.14)", b["profile"]
PY
	then ok; else not_ok "the manual's numbers"; fi
fi
if have_extra "$CG/speedscope-callgrind.cfn-reset.log"; then
	expect_exit 0 pd show "$PD_CORPUS/$CG/speedscope-callgrind.cfn-reset.log"
	expect_grep "the inclusive costs of calls do not add up" "$T/err"
fi

# refused: NAME LINE WHAT, the line counted in the file itself
refused() {
	have_extra "$CG/$1" || return 0
	expect_exit 2 pd show "$PD_CORPUS/$CG/$1"
	expect_grep "^perfdiff: .*/$1:$2: $3" "$T/err"
	expect_lines 1 "$T/err"
}
# costs written relative, which only positions may be
refused speedscope-callgrind.subposition-compression.log 13 \
	'a cost must be a whole number of at most 64 bits: "\*" (only positions'
# "Undefined compressed function index 2" (its comment: line 16)
refused kcachegrind-3.5-cg-badcompression1 16 '(2) refers to no name given before'
# "10 20 30" with one event (its comment says line 10 of the 11 lines the
# file has, callgrind_annotate "Line 9: too many event counts")
refused kcachegrind-3.5-cg-badcostline1 9 'more costs than the 1 events'
# "9a 21" (its comment: line 12, "Garbage at end of cost line";
# callgrind_annotate passes it over as malformed)
refused kcachegrind-3.5-cg-badposition 12 'a position must be a number'
if [ $annotate = 1 ] && have_extra "$CG/kcachegrind-3.5-cg-badcostline1"; then
	callgrind_annotate "$PD_CORPUS/$CG/kcachegrind-3.5-cg-badcostline1" >/dev/null 2>"$T/ca"
	expect_grep "^Line 9: too many event counts" "$T/ca"
	callgrind_annotate "$PD_CORPUS/$CG/kcachegrind-3.5-cg-badposition" >/dev/null 2>"$T/ca"
	expect_grep "line 12 malformed" "$T/ca"
fi
finish
