#!/bin/sh
# JSON tokens longer than one read: a string or a number that spans many
# 1 MiB pieces of input is read whole and right (escapes on either side of
# a piece's end included), in time linear in its length (yajl re-read a
# split token from its start on every later piece: a 50 MB name took
# seconds, a 200 MB one minutes; tests/bench/json_tokens.sh times it).
. "$(dirname "$0")/lib.sh"
python3 - "$T" <<'PY'
import json, sys
d = sys.argv[1]
# A 3 MiB name of escapes: every byte offset sees a quote, a backslash,
# a \u escape or a plain byte, so some piece ends inside each kind.
unit = 'a\\"b\\\\c\\u00e9d"'  # decoded: a"b\c\u00e9d"
name = ''.join(unit[:1 + i % len(unit)] for i in range(400000))
expect = json.loads(json.dumps(name))
doc = {"$schema": "https://www.speedscope.app/file-format-schema.json",
       "shared": {"frames": [{"name": name}, {"name": "short"}]},
       "profiles": [{"type": "sampled", "name": "p", "unit": "none",
                     "startValue": 0, "endValue": 3,
                     "samples": [[0], [1], [0, 1]],
                     "weights": [1, 1, 1]}]}
text = json.dumps(doc)
# a number of two million digits in a key the reader passes over
text = text.replace('{"$schema"', '{"x": 1.' + '0' * 2000000 + ', "$schema"')
open(d + "/long.json", "w").write(text)
open(d + "/want.txt", "w", encoding="utf-8").write(expect)
PY
expect_exit 0 pd show -f json "$T/long.json"
if python3 - "$T/out" "$T/want.txt" <<'PY'; then ok; else not_ok "long tokens read wrong"; fi
import json, sys
p = json.load(open(sys.argv[1]))
want = open(sys.argv[2], encoding="utf-8").read()
names = {f["function"]: f for f in p["functions"]}
assert len(names) == 2, list(names)[:1]
assert want in names, "the long name changed"
assert names[want]["self"] == 1 and names["short"]["self"] == 2, names["short"]
assert p["profile"]["samples"] == 3, p["profile"]
PY
# Cut short inside the long string: an error at the end, not a wrong name.
head -c 2500000 "$T/long.json" >"$T/cut.json"
expect_exit 2 pd show "$T/cut.json"
expect_lines 1 "$T/err"
expect_grep 'cut.json: byte 2500000.*truncated JSON' "$T/err"
# A syntax error after a long string names its byte.
python3 -c 'import sys; sys.stdout.write("{\"shared\":{\"frames\":[{\"name\":\"" + "x" * 3000000 + "\"}}]}}")' >"$T/bad.json"
expect_exit 2 pd show "$T/bad.json"
expect_grep 'bad.json: byte 30000[0-9][0-9]' "$T/err"
echo "t0047: $pass passed, $failed failed"
[ "$failed" -eq 0 ]
