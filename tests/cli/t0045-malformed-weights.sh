#!/bin/sh
# Rows that cannot be weighed are an error naming their place, or a
# counted and reported skip, never a silent change of totals: a speedscope
# sample whose entry is an array (it was skipped while its weight stayed
# in the total: 3 of 10 ms in no function), a denormal weight (it made
# "inf samples"), and negative WPA weights (a function got more than the
# whole). Files written here in the formats' shapes.
. "$(dirname "$0")/lib.sh"
ss() { # FILE SAMPLES WEIGHTS
	printf '{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[{"name":"a"},{"name":"b"}]},"profiles":[{"type":"sampled","name":"p","unit":"milliseconds","startValue":0,"endValue":10,"samples":%s,"weights":%s}]}' "$2" "$3" >"$1"
}
ss "$T/nested.json" '[[0,1],[0],[[32]],[0,1]]' '[1,2,3,4]'
expect_exit 2 pd show "$T/nested.json"
expect_lines 1 "$T/err"
expect_grep 'nested.json: \$.profiles\[0\].samples\[2\]\[0\]: sample entry is not a frame index' "$T/err"
ss "$T/wmap.json" '[[0,1],[0]]' '[1,{"w":2}]'
expect_exit 2 pd show "$T/wmap.json"
expect_grep 'weights\[1\]: weight is not a number' "$T/err"
# 1 + 2 + 5e-324 + 4 ms: four rows, four samples (the smallest weight is
# no unit when the others are 1e323 times it)
ss "$T/tiny.json" '[[0,1],[0],[1],[0,1]]' '[1,2,5e-324,4]'
expect_exit 0 pd show -f json "$T/tiny.json"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "denormal weight"; fi
import json, sys
p = json.load(open(sys.argv[1]))["profile"]
assert p["samples"] == 4 and abs(p["total"] - 7e6) < 1, p
PY
printf 'Process,Thread ID,Stack,Count,Weight (in view) (ms)\n"app.exe (1)",5,app.exe!main/app.exe!parse,10,10.0\n"app.exe (1)",5,app.exe!main/app.exe!read,5,-5.0\n' >"$T/neg.csv"
expect_exit 2 pd show "$T/neg.csv"
expect_lines 1 "$T/err"
expect_grep 'neg.csv: row 3, column "Weight (in view) (ms)": a negative weight' "$T/err"

# Messages that say what is wrong and where: a corrupt gzip names itself
# (it said "read error: <fd:3>: incorrect data check"), a truncated or
# invalid build_meta.json gives the byte (it said "near:" and nothing).
python3 - "$PD_ROOT/fixtures/demo/base.perf.txt.gz" "$T/bad.gz" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[len(b) // 2] ^= 0xFF
open(sys.argv[2], "wb").write(b)
PY
expect_exit 2 pd show "$T/bad.gz"
expect_lines 1 "$T/err"
expect_grep "bad.gz: byte [0-9]*: corrupt gzip data: incorrect data check" "$T/err"
expect_no_grep "<fd:" "$T/err"
mkdir -p "$T/bm/profiles"
printf 'main;a 1\nmain;b 2\n' >"$T/bm/profiles/p.folded"
printf '{"git_sha": "abc1234", "scen' >"$T/bm/build_meta.json"
expect_exit 2 pd ingest --db "$T/bm.db" "$T/bm"
expect_grep "build_meta.json: byte 28: truncated JSON (it ends inside a value)" "$T/err"
printf '{"git_sha": x}' >"$T/bm/build_meta.json"
expect_exit 2 pd ingest --db "$T/bm.db" "$T/bm"
expect_grep 'build_meta.json: byte 12: not valid JSON near "x}"' "$T/err"
printf '[1]' >"$T/bm/build_meta.json"
expect_exit 2 pd ingest --db "$T/bm.db" "$T/bm"
expect_grep "build_meta.json: JSON, but not an object" "$T/err"

# Limits (src/core/limits.h): reaching one is one error line of one shape,
# naming the limit, never a silent cut. An old V8 .cpuprofile nested 5000
# frames deep: the path is shortened so that the reason survives (the
# message was cut at 1 024 bytes and lost it).
python3 - "$T/deep.cpuprofile" <<'PY'
import sys
node = '{"functionName":"f","url":"","lineNumber":0,"callUID":1,"hitCount":1,"children":[%s],"id":%d}'
inner = ""
for i in range(5000, 0, -1):
    inner = node % (inner, i)
open(sys.argv[1], "w").write('{"head":' + inner + ',"startTime":0,"endTime":1,"samples":[1],"timestamps":[0]}')
PY
expect_exit 2 pd show "$T/deep.cpuprofile"
expect_lines 1 "$T/err"
expect_grep "deep.cpuprofile: \$.head.children\[0\].*(PD_LIMIT_CALL_DEPTH in src/core/limits.h)$" "$T/err"
expect_grep "over perfdiff's limit of 4096 nesting levels" "$T/err"
# build_meta.json over PD_LIMIT_BUILD_META (1 MiB)
python3 -c 'import sys; sys.stdout.write("{\"git_sha\": \"abc1234\", \"notes\": \"" + "x" * (1 << 20) + "\"}")' >"$T/bm/build_meta.json"
expect_exit 2 pd ingest --db "$T/bm.db" "$T/bm"
expect_grep "build_meta.json: over perfdiff's limit of 1048576 bytes (PD_LIMIT_BUILD_META in src/core/limits.h)" "$T/err"
# folders nested past PD_LIMIT_BUNDLE_DEPTH
printf '{"git_sha": "abc1234", "scenario": "s", "cache": "warm"}' >"$T/bm/build_meta.json"
d="$T/bm/profiles"
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17; do d="$d/d$i"; done
mkdir -p "$d" && printf 'main;a 1\n' >"$d/p.folded"
expect_exit 2 pd ingest --db "$T/bm.db" "$T/bm"
expect_grep "over perfdiff's limit of 16 folder levels (PD_LIMIT_BUNDLE_DEPTH in src/core/limits.h)" "$T/err"
finish
