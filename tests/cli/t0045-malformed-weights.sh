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
expect_grep "bad.gz: corrupt gzip data: incorrect data check" "$T/err"
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
finish
