#!/bin/sh
# Every sink × every payload, as one table (docs/architecture.md,
# "Untrusted text"): 33 hostile function names (terminal escapes, C1 and
# bidi controls, zero-width characters, HTML, Markdown links, mentions and
# autolinks, spreadsheet formulas, table and stack separators, SQL) and
# invalid UTF-8 go through a diff into text, Markdown, HTML, JSON, folded
# and XLSX, and `show`; each sink is checked for what it must never let
# through. t0040, t0042, t0043 and t0500 check single sinks in depth.
. "$(dirname "$0")/lib.sh"
python3 - "$T" <<'PY'
import json, sys
t = sys.argv[1]
payloads = [
    "clear\x1b[2Jscreen", "title\x1b]0;PWNED\x07end", "osc8\x1b]8;;http://evil.example\x07link\x1b]8;;\x07",
    "bell\x07", "back\x08space", "carriage\rreturn", "new\nline", "tab\there", "del\x7fete",
    "csi\u009b31m", "rlo\u202etxt.exe", "zw\u200bsp", "bom\ufeffx", "lri\u2066x\u2069",
    "=cmd|' /C calc'!A0", "+1+1", "-2+3", "@SUM(1,2)",
    "<script>alert(1)</script>", "\"><img src=x onerror=alert(1)>", "amp&amp;lt;",
    "[click](http://evil.example)", "![pixel](http://evil.example/p.png)", "@someone",
    "https://evil.example/x", "www.evil.example", "|pipe|in|table|", "tick`code`tick",
    "*bold*_it_~s~", "<!-- comment", "'; DROP TABLE runs; --", "semi;colon", "trail 12",
]
assert len(payloads) == 33
frames = [{"name": "main"}] + [{"name": p} for p in payloads]
def doc(mult):
    samples = [[0, i + 1] for i in range(len(payloads))]
    weights = [100 * (mult if i % 2 == 0 else 1) for i in range(len(payloads))]
    return {"$schema": "https://www.speedscope.app/file-format-schema.json",
            "shared": {"frames": frames},
            "profiles": [{"type": "sampled", "name": "p", "unit": "none",
                          "startValue": 0, "endValue": sum(weights),
                          "samples": samples, "weights": weights}]}
json.dump(doc(1), open(t + "/a.json", "w"))
json.dump(doc(3), open(t + "/b.json", "w"))
json.dump(payloads, open(t + "/payloads.json", "w"))
# invalid UTF-8 needs a text format: folded
with open(t + "/bad-a.folded", "wb") as a, open(t + "/bad-b.folded", "wb") as b:
    for i, raw in enumerate([b"bad\xff\xfebytes", b"over\xc0\xaflong", b"cut\xe2\x80"]):
        a.write(b"main;" + raw + b" 100\n")
        b.write(b"main;" + raw + b" 300\n")
PY
# each run exits 0 or 1 (2 is an error, 99 a valgrind finding)
status_ok() {
	[ "$1" -le 1 ] && ok || not_ok "$2 exited $1"
}
for out in txt md html json folded; do
	case $out in txt) f=text ;; *) f=$out ;; esac
	pd --sample-weight 1 --min-impact 0 -f "$f" "$T/a.json" "$T/b.json" >"$T/d.$out" 2>"$T/d.$out.err"
	status_ok $? "diff -f $f"
	pd --sample-weight 1 --min-impact 0 -f "$f" "$T/bad-a.folded" "$T/bad-b.folded" >"$T/bad.$out" 2>>"$T/d.$out.err"
	status_ok $? "diff -f $f (invalid UTF-8)"
done
pd --sample-weight 1 --min-impact 0 -f xlsx -o "$T/d.xlsx" "$T/a.json" "$T/b.json" 2>/dev/null
status_ok $? "diff -f xlsx"
pd show "$T/a.json" >"$T/show.txt" 2>"$T/show.err"
status_ok $? "show"
pd show "$T/bad-a.folded" >>"$T/show.txt" 2>>"$T/show.err"
status_ok $? "show (invalid UTF-8)"
if python3 - "$T" <<'PY'; then ok; else not_ok "a sink let a payload through"; fi
import json, re, sys, zipfile
t = sys.argv[1]
payloads = json.load(open(t + "/payloads.json"))
def raw(name):
    return open(t + "/" + name, "rb").read()
# What a terminal must never get: C0 but newline, DEL, C1 (as UTF-8),
# bidi controls, zero-width characters; and the bytes must be UTF-8.
UNSAFE = re.compile(rb"[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\x8b-\x8f\xaa-\xae]|\xe2\x81[\xa0-\xa4\xa6-\xa9]|\xef\xbb\xbf")
fails = []
def check(cond, what):
    if not cond:
        fails.append(what)
for name in ("d.txt", "bad.txt", "show.txt", "show.err", "d.txt.err", "d.md.err"):
    b = raw(name)
    check(not UNSAFE.search(b), name + ": a terminal control passed: %r" % UNSAFE.findall(b)[:3])
    try:
        b.decode("utf-8")
    except UnicodeDecodeError as e:
        fails.append(name + ": not UTF-8: %s" % e)
# Markdown: the controls as in text, and no live HTML, link, image,
# mention or autolink from a name; a table row stays one row.
for name in ("d.md", "bad.md"):
    b = raw(name)
    s = b.decode("utf-8", "replace")
    check(not UNSAFE.search(b), name + ": a control passed")
    # (perfdiff's own "<!-- -->" breaks autolinks; a name's "<!--" must not pass)
    for bad in ("<script", "<img", "](http", "@someone", "https://evil", "www.evil", "<!-- comment"):
        check(bad not in s, name + ": %r passed" % bad)
    for line in s.splitlines():
        if line.startswith("| ") and "pipe" in line:
            check(line.count(" | ") == s.splitlines()[[l.startswith("| ") for l in s.splitlines()].index(True)].count(" | "),
                  name + ": a name split a table row: " + line[:80])
# HTML: no markup from a name; the names escaped.
for name in ("d.html", "bad.html"):
    s = raw(name).decode("utf-8", "replace")
    check("<script>alert(1)" not in s and "<img src=x" not in s, name + ": markup passed")
    check("\x1b" not in s, name + ": ESC passed")
h = raw("d.html").decode()
check("&lt;script&gt;alert(1)" in h or "\\u003cscript\\u003ealert(1)" in h,
      "d.html: the script name not kept, escaped")
# JSON: valid, and every name exactly as it was.
d = json.loads(raw("d.json"))
names = {f["function"] for f in d["functions"]}
missing = [p for p in payloads if p not in names]
check(not missing, "d.json: names changed: %r" % missing[:4])
json.loads(raw("bad.json"))
# Folded: one stack a line, "frames count count", no frame with ';' or a
# newline, two frames a stack here.
for name in ("d.folded", "bad.folded"):
    lines = raw(name).decode("utf-8", "replace").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    check(len(lines) == (34 if name == "d.folded" else 4) - 1, name + ": %d lines" % len(lines))
    for line in lines:
        m = re.match(r"^(.*) (\d+) (\d+)$", line)
        check(m is not None, name + ": not 'stack a b': %r" % line[:60])
        if m:
            check(m.group(1).count(";") == 1, name + ": a ';' inside a name: %r" % line[:60])
# XLSX: no formula anywhere; a name starting with = + - @ is a string.
z = zipfile.ZipFile(t + "/d.xlsx")
for n in z.namelist():
    if n.startswith("xl/worksheets/") and n.endswith(".xml"):
        x = z.read(n).decode("utf-8")
        check("<f>" not in x and "<f " not in x, "d.xlsx: a formula in " + n)
shared = z.read("xl/sharedStrings.xml").decode("utf-8") if "xl/sharedStrings.xml" in z.namelist() else ""
check("=cmd|" in shared.replace("&apos;", "'") or "=cmd|" in "".join(
    z.read(n).decode() for n in z.namelist() if n.startswith("xl/worksheets/")),
      "d.xlsx: the formula-looking name is not kept as text")
for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
PY
finish
