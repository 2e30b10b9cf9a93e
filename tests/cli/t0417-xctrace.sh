#!/bin/sh
# Instruments traces exported by xctrace as XML (the time-profile table):
# rows of samples whose thread, weight and backtrace are written once
# with an id and later as refs. fixtures/instruments/time-profile.xctrace.xml
# is written by hand in that shape; its numbers, counted by hand:
#   row 1: 1 ms  start > main > parse_record        (defines backtrace 9)
#   row 2: 1 ms  the same backtrace, by ref
#   row 3: 1 ms  start > main > app+0x4010          (an address in app,
#                 unsymbolicated: named binary+0xRVA, RVA 0x100004010 -
#                 load address 0x100000000)
#   row 4: 2 ms  start > main > parse_record > hash_key & co, thread
#                 "worker" (a new thread, an entity-escaped name)
#   row 5: no backtrace (sentinels): no sample
# parse_record self 2 ms total 4 ms; hash_key 2 ms; app+0x4010 1 ms;
# 5 ms in 4 samples.
. "$(dirname "$0")/lib.sh"
X=$PD_ROOT/fixtures/instruments/time-profile.xctrace.xml
expect_exit 0 pd show -f json "$X"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "xctrace numbers"; fi
import json, sys
d = json.load(open(sys.argv[1]))
p = d["profile"]
f = {(x["function"], x["module"]): x for x in d["functions"]}
ms = lambda k, q="self": f[k][q] / 1e6
assert p["format"] == "xctrace" and p["unit"] == "ns", p
assert p["total"] == 5e6 and p["samples"] == 4, p
assert ms(("parse_record", "app")) == 2 and ms(("parse_record", "app"), "total") == 4
assert ms(("hash_key & co", "app")) == 2
assert ms(("app+0x4010", "app")) == 1
assert ms(("start", "dyld"), "total") == 5 and ms(("main", "app"), "total") == 5
assert f[("hash_key & co", "app")]["self_samples"] == 1
PY
# --thread and --process pick rows by the thread's and process's names.
expect_exit 0 pd show -f json --thread worker "$X"
expect_grep '"samples":[[:space:]]*1,' "$T/out"
expect_exit 0 pd show -f json --process 'app (4321)' "$X"
expect_grep '"samples":[[:space:]]*4,' "$T/out"

# Another table, a ref to nothing, broken XML, and an entity bomb: one
# line naming the file and line, exit 2.
sed 's/schema name="time-profile"/schema name="cpu-profile"/' "$X" >"$T/cpu.xml"
expect_exit 2 pd show "$T/cpu.xml"
expect_lines 1 "$T/err"
expect_grep 'cpu.xml:3: an xctrace table of schema "cpu-profile": perfdiff reads the Time Profiler' "$T/err"
sed 's/<backtrace ref="9"\/>/<backtrace ref="999"\/>/' "$X" >"$T/ref.xml"
expect_exit 2 pd show "$T/ref.xml"
expect_grep 'ref.xml:5: ref="999" names no earlier element of its kind' "$T/err"
head -c 1500 "$X" >"$T/cut.xml"
expect_exit 2 pd show "$T/cut.xml"
expect_lines 1 "$T/err"
expect_grep 'cut.xml:[0-9]*: XML error' "$T/err"
{
	printf '<?xml version="1.0"?>\n<!DOCTYPE t [<!ENTITY a "aaaaaaaaaa">'
	prev=a
	for e in b c d e f g h i j; do
		printf '<!ENTITY %s "&%s;&%s;&%s;&%s;&%s;&%s;&%s;&%s;&%s;&%s;">' $e $prev $prev $prev $prev $prev $prev $prev $prev $prev $prev
		prev=$e
	done
	printf ']>\n<trace-query-result><node><schema name="time-profile"/><row><thread id="1" fmt="&j;"/></row></node></trace-query-result>\n'
} >"$T/bomb.xml"
expect_exit 2 pd show "$T/bomb.xml"
expect_lines 1 "$T/err"
expect_grep 'bomb.xml:[0-9]*: XML error' "$T/err"
# A diff of the export with itself: nothing changes.
expect_exit 0 pd "$X" "$X"
finish
