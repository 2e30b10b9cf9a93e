#!/bin/sh
# The house's rules (docs/architecture.md): includes go down only, from
# cmd/ to series/, compare/, then report/, store/, stats/, import/, then
# model/ and core/; nothing below cmd/ prints or exits (errors come back
# in struct pd_err); no file outside cmd/ and main.c includes a cmd/
# header. Read from the sources, so a move that breaks a rule fails here.
. "$(dirname "$0")/lib.sh"
if python3 - "$PD_ROOT/src" <<'PY'; then ok; else not_ok "layers"; fi
import os, re, sys
root = sys.argv[1]
rank = {"core": 0, "model": 1, "import": 2, "stats": 2, "store": 3,
        "report": 3, "compare": 4, "series": 5, "cmd": 6}
bad = []
inc = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/')
for d, _, files in os.walk(root):
    for f in files:
        if not f.endswith((".c", ".h")):
            continue
        path = os.path.join(d, f)
        rel = os.path.relpath(path, root)
        top = rel.split(os.sep)[0]
        if top not in rank:
            continue  # main.c
        text = open(path, encoding="utf-8").read()
        for n, line in enumerate(text.splitlines(), 1):
            m = inc.match(line)
            if m and m.group(1) in rank and rank[m.group(1)] > rank[top]:
                bad.append("%s:%d includes %s/, a layer above" % (rel, n, m.group(1)))
        if top in ("compare", "series"):
            code = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
            for m in re.finditer(r"(?<![A-Za-z_])(printf|puts|putchar|exit|pd_error)\s*\(|\bstd(err|out)\b", code):
                bad.append("%s: %s in a layer that prints nothing" % (rel, m.group(0)))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
finish
