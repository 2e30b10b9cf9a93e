#!/bin/sh
# Firefox profiles' columns read by the scanner of numbers (and yajl where
# it hands back): real samply recordings rewritten with the same values in
# other JSON spellings (exponents, a fraction of zeros, -0, spaces and new
# lines around every comma, a column made longer than one 1 MiB piece)
# read exactly as the originals; a comma before "]" in a column is an
# error at its byte.
. "$(dirname "$0")/lib.sh"
need_corpus
dir=$PD_CORPUS/firefox-processed
for f in samply-linux-v49-25threads.json.gz samply-perf-import-ls-linux-v41-unsymbolicated.json; do
	python3 - "$dir/$f" "$T/respelled.json" "$T/pad.json" <<'PY'
import gzip, json, random, sys
src, out, pad = sys.argv[1:4]
raw = (gzip.open(src) if src.endswith(".gz") else open(src, "rb")).read()
doc = json.loads(raw)
rng = random.Random(49)

def spell(v):
    """The same number, another way round."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    k = rng.randrange(5)
    if isinstance(v, int):
        return ["%d" % v, "%d.000" % v, "%de0" % v, "%dE+00" % v,
                "-0" if v == 0 else "%d" % v][k]
    return [repr(v), "%.17e" % v, "%.17E" % v, repr(v), repr(v)][k]

def emit(v, parts):
    if isinstance(v, dict):
        parts.append("{")
        for i, (k, x) in enumerate(v.items()):
            parts.append(", " if i else "")
            parts.append(json.dumps(k) + ":")
            emit(x, parts)
        parts.append("}")
    elif isinstance(v, list):
        parts.append("[")
        for i, x in enumerate(v):
            if i:
                parts.append(rng.choice([",", " , ", ",\n", "\n,\t"]))
            emit(x, parts)
        parts.append("]")
    else:
        s = spell(v)
        parts.append(s if s is not None else json.dumps(v))

parts = []
emit(doc, parts)
open(out, "w").write("".join(parts))
# one thread's samples repeated past a 1 MiB piece, in both files alike
def grow(d):
    th = d["threads"][0]
    s = th["samples"]
    n = s["length"] if "length" in s else len(s.get("stack", []))
    if "stack" in s and n:
        reps = (1 << 21) // (8 * n) + 1
        for k, col in list(s.items()):
            if isinstance(col, list) and len(col) == n:
                s[k] = col * reps
        s["length"] = n * reps
    return d
json.dump(grow(json.loads(raw)), open(pad, "w"))
parts = []
emit(grow(json.loads(raw)), parts)
open(pad + ".respelled", "w").write("".join(parts))
PY
	expect_exit 0 pd show "$dir/$f"
	tail -n +2 "$T/out" >"$T/orig.txt"
	expect_exit 0 pd show "$T/respelled.json"
	if tail -n +2 "$T/out" | cmp -s - "$T/orig.txt"; then ok; else
		not_ok "$f respelled reads differently"
	fi
	expect_exit 0 pd show "$T/pad.json"
	tail -n +2 "$T/out" >"$T/pad.txt"
	expect_exit 0 pd show "$T/pad.json.respelled"
	if tail -n +2 "$T/out" | cmp -s - "$T/pad.txt"; then ok; else
		not_ok "$f grown and respelled reads differently"
	fi
done

# a comma before the "]" of a samples column
python3 - "$dir/samply-perf-import-ls-linux-v41-unsymbolicated.json" "$T/comma.json" <<'PY'
import sys
import re
text = open(sys.argv[1], "rb").read()  # offsets in bytes
at = re.search(rb'"stack":\[[0-9]', text).end() - 1  # a column not empty
end = text.index(b"]", at)
open(sys.argv[2], "wb").write(text[:end] + b"," + text[end:])
open(sys.argv[2] + ".at", "w").write(str(end + 1))
PY
expect_exit 2 pd show "$T/comma.json"
expect_grep "comma.json: byte $(cat "$T/comma.json.at") at .*: JSON syntax error" "$T/err"
expect_lines 1 "$T/err"
finish
