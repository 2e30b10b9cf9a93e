#!/bin/sh
# The XLSX workbook read back by an independent reader (xlsx2csv): the
# numbers equal the JSON of the same diff, and a name starting with '='
# is a string, never a formula.
. "$(dirname "$0")/lib.sh"
command -v xlsx2csv >/dev/null || { echo "xlsx2csv not installed: skipped"; exit 77; }
D=$PD_ROOT/fixtures/demo
expect_exit 1 pd -f xlsx -o "$T/r.xlsx" "$D/base.perf.txt.gz" "$D/cand.perf.txt.gz"
expect_exit 1 pd -f json -o "$T/r.json" "$D/base.perf.txt.gz" "$D/cand.perf.txt.gz"
xlsx2csv -n "All functions" "$T/r.xlsx" >"$T/all.csv"
xlsx2csv -n "Summary" "$T/r.xlsx" >"$T/summary.csv"
xlsx2csv -n "Regressions" "$T/r.xlsx" >"$T/reg.csv"
if python3 - "$T/all.csv" "$T/r.json" "$T/reg.csv" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
d = json.load(open(sys.argv[2]))
by = {r["Function"]: r for r in rows}
assert len(rows) == len(d["functions"]), (len(rows), len(d["functions"]))
for f in d["functions"]:
    r = by[f["function"]]
    s = f["self"]
    assert abs(float(r["Self baseline (ms)"]) - s["baseline"] / 1e6) < 1e-6, (f["function"], r)
    assert abs(float(r["Self candidate (ms)"]) - s["candidate"] / 1e6) < 1e-6
    assert r["Self verdict"] == s["status"]
    if s["ratio"] is not None:
        assert abs(float(r["Self ratio"]) - s["ratio"]) < 1e-3
    if s["delta_pct"] is not None:
        assert abs(float(r["Self delta %"]) - s["delta_pct"] / 100) < 1e-6
reg = list(csv.DictReader(open(sys.argv[3])))
assert reg[0]["Function"] == "parse_record", reg[0]
PY
then ok; else not_ok "xlsx numbers differ from the JSON"; fi
expect_grep "perfdiff: regressed" "$T/summary.csv"
# Formula injection: '=' names stay strings (no <f> element in any sheet).
printf 'main;=HYPERLINK("http://e","x") 10\nmain;+1+1 10\nmain;@SUM(A1) 10\nmain;-2 10\n' >"$T/a.folded"
printf 'main;=HYPERLINK("http://e","x") 30\nmain;+1+1 10\nmain;@SUM(A1) 10\nmain;-2 10\n' >"$T/b.folded"
pd --sample-weight 1 -f xlsx -o "$T/inj.xlsx" "$T/a.folded" "$T/b.folded" >/dev/null 2>&1
mkdir -p "$T/x" && (cd "$T/x" && python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall()' "$T/inj.xlsx")
if grep -l "<f>" "$T"/x/xl/worksheets/*.xml >/dev/null 2>&1; then not_ok "a formula in the workbook"; else ok; fi
xlsx2csv -n "All functions" "$T/inj.xlsx" >"$T/inj.csv"
expect_grep '=HYPERLINK' "$T/inj.csv"
expect_exit 2 pd -f xlsx "$D/base.perf.txt.gz" "$D/cand.perf.txt.gz"
expect_grep "needs -o" "$T/err"
# Every column of "All functions" is as wide as its header (they were cut
# at 13 characters: "Self baseline (m"), and the summary's chart names
# both axes.
if python3 - "$T/r.xlsx" <<'PY'
import re, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
book = z.read("xl/workbook.xml").decode()
names = re.findall(r'<sheet name="([^"]+)" sheetId="(\d+)"', book)
sheet = [i for n, i in names if n == "All functions"][0]
xml = z.read("xl/worksheets/sheet%s.xml" % sheet).decode()
shared = re.findall(r"<t[^>]*>([^<]*)</t>", z.read("xl/sharedStrings.xml").decode())
cols = {}
for lo, hi, w in re.findall(r'<col min="(\d+)" max="(\d+)" width="([\d.]+)"', xml):
    for c in range(int(lo), int(hi) + 1):
        cols[c] = float(w)
row1 = re.search(r'<row r="1"[^>]*>(.*?)</row>', xml).group(1)
for ref, idx in re.findall(r'<c r="([A-Z]+)1"[^>]*t="s"[^>]*><v>(\d+)</v>', row1):
    c = 0
    for ch in ref:
        c = c * 26 + ord(ch) - 64
    assert cols.get(c, 8.43) >= len(shared[int(idx)]), (ref, shared[int(idx)], cols.get(c))
chart = z.read("xl/charts/chart1.xml").decode()
for ax in ("c:valAx", "c:catAx"):
    part = re.search("<%s>(.*?)</%s>" % (ax, ax), chart, re.S).group(1)
    assert "<c:title>" in part, ax
PY
then ok; else not_ok "xlsx: headers cut or chart axes without titles"; fi
# A long name is cut at a character, to the 32 767 UTF-16 units a cell
# holds: 20 000 two-byte characters (40 000 bytes) stay whole, 40 000 are
# cut to 32 767, and an emoji (two units) is never split (the cut fell at
# byte 32 767, inside a character, and the workbook was not UTF-8).
python3 - "$T" <<'PY'
import sys
t = sys.argv[1]
names = ["\u00e9" * 20000, "\u00e8" * 40000, "\U0001F600" * 20000]
for side, w in (("a", 10), ("b", 30)):
    with open("%s/long%s.folded" % (t, side), "w", encoding="utf-8") as f:
        for n in names:
            f.write("main;%s %d\n" % (n, w))
PY
pd --sample-weight 1 -f xlsx -o "$T/long.xlsx" "$T/longa.folded" "$T/longb.folded" >/dev/null 2>&1
if python3 - "$T/long.xlsx" <<'PY'
import re, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
text = z.read("xl/sharedStrings.xml").decode("utf-8")  # strict: fails on a cut character
cells = re.findall(r"<t[^>]*>([^<]*)</t>", text)
def units(s):
    return sum(2 if ord(c) > 0xFFFF else 1 for c in s)
e = [c for c in cells if c and set(c) == {"\u00e9"}]
g = [c for c in cells if c and set(c) == {"\u00e8"}]
m = [c for c in cells if c and set(c) == {"\U0001F600"}]
assert e and all(len(c) == 20000 for c in e), [len(c) for c in e]
assert g and all(len(c) == 32767 for c in g), [len(c) for c in g]
assert m and all(units(c) <= 32767 and len(c) == 16383 for c in m), [len(c) for c in m]
PY
then ok; else not_ok "xlsx: a long name cut inside a character or too short"; fi
finish
