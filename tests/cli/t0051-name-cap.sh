#!/bin/sh
# One name is at most PD_LIMIT_NAME bytes (16 MiB, src/core/limits.h): a
# longer one is an error naming the file, the name's length and its start,
# exit 2, never a silent cut; a name of exactly the cap is read. The files
# are made here, gzipped (16 MiB of one letter is 16 KB).
. "$(dirname "$0")/lib.sh"

cap=16777216
mk() { # mk NAME_LENGTH FILE: a folded profile whose middle frame is that long
	python3 -c "
import sys
sys.stdout.write('main;' + 'a' * int(sys.argv[1]) + ';leaf 3\nmain;other 2\n')
" "$1" | gzip -c >"$2"
}
mk $((cap + 1)) "$T/long.folded.gz"
mk "$cap" "$T/edge.folded.gz"

expect_exit 2 pd show --from folded "$T/long.folded.gz"
expect_lines 1 "$T/err"
expect_grep "long.folded.gz: a name of $((cap + 1)) bytes starting \"aaaa" "$T/err"
expect_grep "over perfdiff's limit of $cap bytes in one name (PD_LIMIT_NAME" "$T/err"

expect_exit 0 pd show --from folded "$T/edge.folded.gz"
expect_grep "other" "$T/out"

# the same cap in the JSON reader: a string longer than it is refused as
# it is read, before it is parsed whole
python3 -c "
import json, sys
n = 'b' * (int(sys.argv[1]) + 1)
json.dump({'\$schema': 'https://www.speedscope.app/file-format-schema.json',
  'shared': {'frames': [{'name': 'main'}, {'name': n}]},
  'profiles': [{'type': 'sampled', 'name': 't', 'unit': 'none',
    'startValue': 0, 'endValue': 2, 'samples': [[0, 1], [0]],
    'weights': [1, 1]}]}, sys.stdout)
" "$cap" | gzip -c >"$T/long.speedscope.json.gz"
expect_exit 2 pd show "$T/long.speedscope.json.gz"
expect_lines 1 "$T/err"
expect_grep "long.speedscope.json.gz: .*over perfdiff's limit of $cap bytes in one name (PD_LIMIT_NAME" "$T/err"
# a string of 64 MiB stops the reader where it passes the cap
python3 -c "
import sys
sys.stdout.write('{\"shared\":{\"frames\":[{\"name\":\"' + 'c' * (64 << 20) + '\"}]}}')
" | gzip -c >"$T/huge.json.gz"
expect_exit 2 pd show "$T/huge.json.gz"
expect_lines 1 "$T/err"
expect_grep "huge.json.gz: byte [0-9]*: a JSON string or number: over perfdiff's limit of $cap bytes" "$T/err"
finish
