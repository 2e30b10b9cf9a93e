#!/bin/sh
# Linux kernel modules: perf.data and its perf script text name a
# module's frames alike ("[nf_conntrack]", as perf does: the file's name
# without .ko, dashes made underscores), and both set them apart as
# system frames (docs/statistics.md, "System frames").
. "$(dirname "$0")/lib.sh"
python3 "$PD_ROOT/tests/tools/perfdata_kmod.py" "$T/k.data" || exit 1

# module [nf_conntrack], system, 30 samples of self time: in FILE.json
kmod_ok() {
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
m = [f for f in d["functions"] if f["module"] == "[nf_conntrack]"]
assert len(m) == 1, [(f["function"], f["module"]) for f in d["functions"]]
f = m[0]
assert f["system"] is True, f
for side in ("baseline", "candidate"):
    assert f["self"][side + "_samples"] == 30, f["self"]
assert not [g for g in d["functions"] if "ko" in g["module"]]
PY
}

expect_exit 0 pd "$T/k.data" "$T/k.data" -f json
kmod_ok "$T/out" && ok || not_ok "perf.data: the module's frames"
# perf 3.x maps the module by its name in brackets ("[nf-conntrack.ko]"),
# which perf script prints "[nf_conntrack]": the same module
python3 "$PD_ROOT/tests/tools/perfdata_kmod.py" "$T/old.data" old || not_ok "old.data"
expect_exit 0 pd "$T/old.data" "$T/old.data" -f json
kmod_ok "$T/out" && ok || not_ok "perf 3.x perf.data: the module's frames"
# The idle task, which has no COMM record, is swapper, as perf calls it.
python3 - "$T/out" <<'PY' && ok || not_ok "threads: $(head -c 300 "$T/out")"
import json, sys
t = json.load(open(sys.argv[1]))["baseline"]["threads"]
assert sorted(t) == ["app", "swapper"], t
PY
expect_exit 0 pd show "$T/k.data" --thread swapper
expect_grep "5 samples" "$T/out"
# A filter that matches nothing is an error, as in every other format.
expect_exit 2 pd show "$T/k.data" --thread nosuch
expect_grep "k.data: no samples left after filtering (empty profile)" "$T/err"
expect_exit 2 pd "$T/k.data" "$T/k.data" --process nosuch

# The same recording as perf prints it: the same module, nothing added
# or removed in it.
if command -v perf >/dev/null && perf script -i "$T/k.data" >"$T/k.txt" 2>/dev/null; then
	expect_grep "ffffffffc0001234 \[unknown\] (\[nf_conntrack\])" "$T/k.txt"
	expect_grep "^ *swapper " "$T/k.txt"
	expect_exit 0 pd "$T/k.data" "$T/k.txt" -f json
	kmod_ok "$T/out" && ok || not_ok "perf.data against its text: the module's frames"
else
	echo "perf not here: the check against perf script skipped"
fi

# A recording only perf can unwind goes through perf script (here a
# stand-in that prints text with a stray line): what the text reader says
# of that text names the user's file, not the temporary copy, deleted by
# the time it is read.
python3 "$PD_ROOT/tests/tools/perfdata_kmod.py" "$T/d.data" dwarf || exit 1
cat >"$T/perf" <<'X'
#!/bin/sh
printf 'app 42 100.000001: 1000000 cpu-clock: \n\t400100 work+0x10 (/srv/app)\n\na stray line\n'
X
chmod +x "$T/perf"
expect_exit 0 pd show --perf "$T/perf" "$T/d.data"
expect_grep "d.data (perf script's text): skipped 1 unrecognised lines, first at $T/d.data (perf script's text):4" "$T/err"
expect_no_grep "pdperf" "$T/err"

# Text written by hand, as perf prints a module frame: a system frame.
cat >"$T/m.txt" <<'X'
app 42 100.000001:    1000000 cpu-clock: 
	ffffffffc0001234 nf_conntrack_in+0x34 ([nf_conntrack])
	ffffffff81001000 do_syscall_64+0x10 ([kernel.kallsyms])
	          400100 work+0x10 (/srv/app)

app 42 100.000002:    1000000 cpu-clock: 
	          400100 work+0x10 (/srv/app)

X
expect_exit 0 pd "$T/m.txt" "$T/m.txt" -f json
expect_grep '"function":	"nf_conntrack_in"' "$T/out"
python3 - "$T/out" <<'PY' && ok || not_ok "a module frame of perf text is a system frame"
import json, sys
d = json.load(open(sys.argv[1]))
s = {f["function"]: f["system"] for f in d["functions"]}
assert s["nf_conntrack_in"] and s["do_syscall_64"] and not s["work"], s
PY
finish
