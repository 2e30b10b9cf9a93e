#!/bin/sh
# A file is a profile only when its content proves it: a Go legacy text
# profile, a note, /proc/self/status are refused with one line that says
# what they are or that no format fits; real folded files, with a few bad
# lines, single frames or a first stack longer than the sniffing window
# (8000 frames), are still read. Files written here in those shapes.
. "$(dirname "$0")/lib.sh"
printf 'heap profile: 1: 2 [3: 4] @ heap/1048576\n1: 2 [3: 4] @ 0x4a1b2c 0x4a0000\n' >"$T/heap.txt"
expect_exit 2 pd show "$T/heap.txt"
expect_lines 1 "$T/err"
expect_grep "heap.txt:1: a Go legacy text profile: write it as a pprof profile with \`go tool pprof -proto" "$T/err"
printf -- '--- contention:\ncycles/second=2000000000\n' >"$T/mutex.txt"
expect_exit 2 pd show "$T/mutex.txt"
expect_grep "a Go legacy text profile" "$T/err"
printf 'ran 3 times 2\nwarm cache 1\n' >"$T/notes.txt"
expect_exit 2 pd show "$T/notes.txt"
expect_grep "notes.txt:1: not a profile format perfdiff knows" "$T/err"
printf 'Name:\tbash\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t42\nThreads:\t1\nVmPeak:\t  7000 kB\n' >"$T/status"
expect_exit 2 pd show "$T/status"
expect_grep "status:1: not a profile format perfdiff knows" "$T/err"
# still folded: stacks with a bad line, and single frames without blanks
printf 'main;parse 10\nnot a stack line\nmain;read 5\nmain;a 1\n' >"$T/bad-line.folded"
expect_exit 0 pd show -f json "$T/bad-line.folded"
expect_grep '"format":.*"folded"' "$T/out"
printf 'main 100\nfoo 50\n' >"$T/single.folded"
expect_exit 0 pd show -f json --sample-weight 1 "$T/single.folded"
expect_grep '"total":.150' "$T/out"
# a BEL in a name makes a short file look binary (1 byte in 14): its
# lines are folded, so it is folded, not "bad pprof" ('m' is no pprof
# field's first byte either); the terminal shows the byte escaped
printf 'main;a\007b 5\n' >"$T/bel.folded"
expect_exit 0 pd show -f json "$T/bel.folded"
expect_grep '"format":.*"folded"' "$T/out"
expect_grep '"function":.*"a\\u0007b"' "$T/out"
expect_exit 0 pd show "$T/bel.folded"
expect_grep 'a\\x07b$' "$T/out"
printf 'main\007x\n' >"$T/bel.bin"
expect_exit 2 pd show "$T/bel.bin"
expect_grep "bel.bin: binary data, not a supported profile" "$T/err"
# a first stack of 9000 frames (89 KB, past the 64 KiB window): 5 + 3
python3 -c "print(';'.join('f%d' % i for i in range(9000)) + ' 5'); print('main;a 3')" >"$T/deep.folded"
expect_exit 0 pd show -f json --sample-weight 1 "$T/deep.folded"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "deep first stack"; fi
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: x for x in d["functions"]}
assert d["profile"]["total"] == 8 and f["f8999"]["self"] == 5 and f["f0"]["total"] == 5, d["profile"]
PY
# A differential folded file (two counts a line, as difffolded.pl and
# perfdiff -f folded write) is no profile: read as one, the first count
# became part of the leaf's name ("read 143").
printf 'main;parse;read 143\nmain;parse 10\n' >"$T/before.folded"
printf 'main;parse;read 150\nmain;parse 12\n' >"$T/after.folded"
pd -f folded "$T/before.folded" "$T/after.folded" >"$T/diff.folded" 2>/dev/null
expect_grep "^main;parse;read 143 150$" "$T/diff.folded"
expect_exit 2 pd show "$T/diff.folded"
expect_grep "diff.folded:1: two counts a line: a differential folded file (difffolded.pl, perfdiff -f folded), not a profile" "$T/err"
expect_lines 1 "$T/err"
# a name that ends in a number on some lines is still a name
printf 'main;[JIT] tid 123 45\nmain;work 10\n' >"$T/jit.folded"
expect_exit 0 pd show "$T/jit.folded"
expect_grep "\[JIT\] tid 123" "$T/out"
# Single-frame folded stacks of C++ functions: the blanks of a signature
# are inside its brackets and do not make the file a note.
printf 'brook::Scheduler::Start(unsigned long, int)+0x131 45759\nbrook::Other<int, char>()+0x10 12\nmain 3\n' >"$T/single.folded"
expect_exit 0 pd show "$T/single.folded"
expect_grep "45759.*brook::Scheduler::Start(unsigned long, int)$" "$T/out"
printf 'ran 3 times 2\nok then 5\n' >"$T/note.txt"
expect_exit 2 pd show "$T/note.txt"
expect_grep "not a profile format perfdiff knows" "$T/err"
# Binary files that are no format perfdiff reads are named by their
# magic, not taken for a broken pprof.
printf 'PK\003\004\024\000\000\000\010\000rest' >"$T/trace.etl.zip"
printf 'PERFFILE\000\000\000\000\020\000\000\000' >"$T/v1.data"
printf 'QPERFSTREAM\000\001\000' >"$T/hotspot.perfparser"
printf 'MOJ\003\001\002\003' >"$T/austin.mojo"
for f in trace.etl.zip:"a zip archive with no .etl trace in its first 64 KiB" \
	v1.data:"a perf.data of format version 1" \
	hotspot.perfparser:"a hotspot perfparser stream" \
	austin.mojo:"an austin MOJO file"; do
	expect_exit 2 pd show "$T/${f%%:*}"
	expect_grep "${f%%:*}: not a profile format perfdiff knows: ${f#*:}" "$T/err"
	expect_lines 1 "$T/err"
done
finish
