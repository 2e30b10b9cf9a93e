#!/bin/sh
# perf.data read directly, on a recording that travels with the repository
# (fixtures/perfdata/README.md): the binary is found by its build id in a
# --symbols folder, and each of its functions has the samples perf script
# printed for the recording on the machine that made it (counted here from
# that text, not by perfdiff). Without the binary its frames stay unnamed,
# with a note. Damaged files: exit 2, one line naming the byte.
. "$(dirname "$0")/lib.sh"
F="$PD_ROOT/fixtures/perfdata"
# No build-id cache and no recorded path: only --symbols can name mixed.
mkdir -p "$T/home"
HOME="$T/home"
PERF_BUILDID_DIR="$T/home/none"
export HOME PERF_BUILDID_DIR

expect_exit 0 pd show -f json --symbols "$F" "$F/mixed.data"
cp "$T/out" "$T/named.json"
gzip -dc "$F/mixed.perf.txt.gz" >"$T/mixed.txt"
if python3 - "$T/named.json" "$T/mixed.txt" <<'PY'; then ok; else not_ok "functions of mixed as perf script counted them"; fi
import json, re, sys
from collections import Counter
d = json.load(open(sys.argv[1]))
# perf script's text: a header line, then "ip sym+off (dso)" lines, leaf
# first, up to an empty line. Count samples per function of mixed.
self_, total, n, stack = Counter(), Counter(), 0, None
def end(stack):
    global n
    if stack is None:
        return
    n += 1
    names = [s for s, dso in stack if dso.endswith("/mixed")]
    if stack and stack[0][1].endswith("/mixed"):
        self_[stack[0][0]] += 1
    for s in set(names):
        total[s] += 1
for line in open(sys.argv[2]):
    if not line.strip():
        end(stack); stack = None
    elif line[0] not in " \t":
        end(stack); stack = []
    else:
        m = re.match(r"\s*[0-9a-f]+ (.*) \((.*)\)$", line.rstrip("\n"))
        # perfdiff names a GCC clone (f.constprop.0) as its function
        # (docs/cli.md)
        name = re.sub(r"\+0x[0-9a-f]+$", "", m.group(1))
        name = re.sub(r"(\.(constprop|isra|part|cold)(\.[0-9]+)?)+$", "", name)
        stack.append((name, m.group(2)))
end(stack)
p = d["profile"]
assert p["samples"] == n == 883, (p["samples"], n)
assert p["format"] == "perf.data" and p["event"] == "cpu-clock", p
got = {f["function"]: f for f in d["functions"] if f["module"] == "mixed"}
assert set(got) == set(total), (sorted(got), sorted(total))
for name in total:
    assert got[name]["self_samples"] == self_[name], (name, got[name], self_[name])
    assert got[name]["total_samples"] == total[name], (name, got[name], total[name])
# weights are perf's periods: every sample's, summed
assert abs(p["total"] - p["samples"] * p["interval"]) < 1e-6 * p["total"] or p["interval"] is None
PY

# Without the binary: mixed's frames are named after it, and a note says
# which build was missing and how to give it.
expect_exit 0 pd show -f json "$F/mixed.data"
expect_grep "mixed.data: [0-9]* of [0-9]* addresses in /tmp/perfdiff-fixture-build/mixed left unnamed: no file with build id e0dbffd95676a10dbb854c261ca888bca1feeb5c" "$T/err"
expect_grep "symbols DIR" "$T/err"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "unnamed frames of mixed carry its samples"; fi
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: x for x in d["functions"] if x["module"] == "mixed"}
assert list(f) == ["[mixed]"], list(f)
assert f["[mixed]"]["total_samples"] == 883, f
PY

# A binary of another build with the same name is not used.
mkdir -p "$T/other"
cc -O0 -o "$T/other/mixed" "$PD_ROOT/fixtures/workload/mixed.c" || exit 1
expect_exit 0 pd show -f json --symbols "$T/other" "$F/mixed.data"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "another build's symbols are not used"; fi
import json, sys
d = json.load(open(sys.argv[1]))
assert [x["function"] for x in d["functions"] if x["module"] == "mixed"] == ["[mixed]"]
PY

# Damaged files: one line, the file and the byte, exit 2.
head -c 30000 "$F/mixed.data" >"$T/cut.data"
expect_exit 2 pd show "$T/cut.data"
expect_lines 1 "$T/err"
expect_grep "cut.data: byte 40: the data section runs past the end of the file" "$T/err"
python3 - "$F/mixed.data" "$T/bad.data" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
data_off = struct.unpack_from("<Q", b, 40)[0]
struct.pack_into("<H", b, data_off + 6, 4)  # first record: size 4
open(sys.argv[2], "wb").write(b)
print(data_off, file=open(sys.argv[2] + ".off", "w"))
PY
expect_exit 2 pd show "$T/bad.data"
expect_lines 1 "$T/err"
expect_grep "bad.data: byte $(cat "$T/bad.data.off"): a record of size below 8" "$T/err"
printf 'PERFILE2' >"$T/short.data"
expect_exit 2 pd show "$T/short.data"
expect_grep "short.data: byte 0: not a perf.data file (too short)" "$T/err"
# perf record killed: the header's sizes are 0, no feature sections, the
# last record cut. Read up to the cut: the samples whole before it (walked
# here record by record), with a note.
python3 - "$F/mixed.data" "$T/killed.data" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
off, size = struct.unpack_from("<QQ", b, 40)
cut = off + size - 100
struct.pack_into("<Q", b, 48, 0)
at, n = off, 0
while at + 8 <= cut:
    typ, misc, sz = struct.unpack_from("<IHH", b, at)
    if at + sz > cut:
        break
    n += typ == 9  # PERF_RECORD_SAMPLE
    at += sz
open(sys.argv[2], "wb").write(b[:cut])
print(n, file=open(sys.argv[2] + ".n", "w"))
PY
expect_exit 0 pd show -f json --symbols "$F" "$T/killed.data"
expect_grep "killed.data: perf record did not finish writing it (killed?)" "$T/err"
if python3 - "$T/out" "$(cat "$T/killed.data.n")" <<'PY'; then ok; else not_ok "a killed recording read to its cut"; fi
import json, sys
d = json.load(open(sys.argv[1]))
assert d["profile"]["samples"] == int(sys.argv[2]) > 800, (d["profile"], sys.argv[2])
PY
# Compressed, as every format may be: the same recording, read from a
# decompressed copy; cut short, an error.
gzip -c "$F/mixed.data" >"$T/mixed.data.gz"
bzip2 -c "$F/mixed.data" >"$T/mixed.data.bz2"
pd show -f json --symbols "$F" "$F/mixed.data" >"$T/raw.json" 2>/dev/null
for z in gz bz2; do
	expect_exit 0 pd show -f json --symbols "$F" "$T/mixed.data.$z"
	# the file's name is in "source" and in any warning (the kernel's
	# symbols are missing on a machine that runs another kernel)
	sed -e 's|"source":.*||' -e "s|$T/mixed.data.$z|FILE|g" "$T/out" >"$T/z.json"
	sed -e 's|"source":.*||' -e "s|$F/mixed.data|FILE|g" "$T/raw.json" >"$T/r.json"
	if cmp -s "$T/z.json" "$T/r.json"; then ok; else
		not_ok "perf.data.$z differs from the raw file: $(diff "$T/r.json" "$T/z.json" | head -5)"
	fi
done
head -c 6000 "$T/mixed.data.gz" >"$T/cut.data.gz"
expect_exit 2 pd show "$T/cut.data.gz"
expect_lines 1 "$T/err"
# A diff of the recording with itself reads both sides directly.
expect_exit 0 pd --symbols "$F" "$F/mixed.data" "$F/mixed.data"
expect_no_grep "perf script" "$T/err"
finish
