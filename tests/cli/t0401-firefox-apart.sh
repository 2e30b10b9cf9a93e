#!/bin/sh
# samply names a library with its debug id ("[kernel.kallsyms]@6F76..."):
# its kernel frames are still the system's, set apart, and an unnamed
# frame of a shared library ("libc.so.6+0x9002") is judged apart from
# the program's. A pair whose program function did 40 % more work while
# the kernel below it and a libc call did 82 % and 80 % less: the verdict
# is the program's regression, and the other two are listed apart (the
# kernel frame with its debug id was judged as the program's, and a
# runbook pair read "improved: [kernel.kallsyms]+0x..." and exited 0).
. "$(dirname "$0")/lib.sh"
spec() { # NAME PARSE KERNEL LIBC
	cat >"$T/$1.spec" <<EOF2
{"lib": {"name": "app", "path": "/app", "debugName": "app", "debugPath": "/app",
         "breakpadId": "", "codeId": "", "arch": "x86_64"},
 "more_libs": [
  {"name": "[kernel.kallsyms]", "path": "[kernel.kallsyms]",
   "debugName": "[kernel.kallsyms]", "debugPath": "/boot/vmlinux",
   "breakpadId": "6F764B98B51C9C693B1B77B592983C220", "codeId": "", "arch": null},
  {"name": "libc.so.6", "path": "/usr/lib/x86_64-linux-gnu/libc.so.6",
   "debugName": "libc.so.6", "debugPath": "/usr/lib/x86_64-linux-gnu/libc.so.6",
   "breakpadId": "A03A7FF3797C337E3FD106472898D3610", "codeId": "", "arch": null}],
 "frames": {"main": 4096, "parse": 8192, "clear_page": [2257000, 1],
            "memchr": [36864, 2], "emit": 12288},
 "stacks": [[["main", "parse"], $2], [["main", "parse", "clear_page"], $3],
            [["main", "memchr"], $4], [["main"], 1500], [["main", "emit"], 1500]], "cpu": 1000}
EOF2
	python3 "$PD_ROOT/tests/tools/samply_make.py" "$T/$1.spec" "$T/$1.json"
}
spec base 2000 1000 500
spec cand 2800 180 100
expect_exit 1 pd "$T/base.json" "$T/cand.json"
expect_grep "^regressed: app+0x2002 \[app\] +40.0 % (self)" "$T/out"
expect_no_grep "^improved:" "$T/out"
expect_exit 1 pd -f json "$T/base.json" "$T/cand.json"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "frames set apart: $(head -c 300 "$T/out")"; fi
import json, sys
d = json.load(open(sys.argv[1]))
rows = {f["function"]: f for f in d["functions"]}
k = [n for n in rows if n.startswith("[kernel.kallsyms]+")]
c = [n for n in rows if n.startswith("libc.so.6+")]
assert len(k) == 1 and len(c) == 1, sorted(rows)
assert rows[k[0]]["system"] and rows[c[0]]["system"]
assert not rows["app+0x2002"]["system"]
# the kernel's time (1000 and 180 samples of 1000 µs, in ns) is kept out
# of the totals; libc's stays in main's
b, c2 = d["baseline"], d["candidate"]
assert b["system_set_apart"] == 1000e6, b["system_set_apart"]
assert c2["system_set_apart"] == 180e6, c2["system_set_apart"]
assert "app+0x2002" in d["headline"], d["headline"]
PY
# --system include judges them all as the program's, in one table
expect_exit 1 pd --system include "$T/base.json" "$T/cand.json"
expect_grep "1 function regressed, 2 functions improved" "$T/out"
expect_no_grep "set apart" "$T/out"
# Written as folded stacks, the kernel's unnamed frame keeps its offset
# in brackets and the collapsers' kernel mark after them; read back, it is
# the same frame, and still the system's.
expect_exit 0 pd convert -f folded "$T/base.json" -o "$T/base.folded"
expect_grep "\[\[kernel.kallsyms\]+0x[0-9a-f]*\]_\[k\] 1000" "$T/base.folded"
expect_exit 0 pd -f json "$T/base.folded" "$T/base.folded"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "folded kernel frame: $(head -c 300 "$T/out")"; fi
import json, sys
d = json.load(open(sys.argv[1]))
k = [f for f in d["functions"] if f["function"].startswith("[kernel.kallsyms]+0x")]
assert len(k) == 1 and k[0]["system"], [f["function"] for f in d["functions"]]
assert d["baseline"]["system_set_apart"] == 1000, d["baseline"]["system_set_apart"]
PY
finish
