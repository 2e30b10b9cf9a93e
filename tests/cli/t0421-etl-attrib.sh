#!/bin/sh
# The ETW traces' samples, processes and modules checked against a second
# reading that shares no code with perfdiff's reader
# (tests/tools/etl_attrib.py, written from the published layouts): its
# sample count against PerfView's own, its samples by process against the
# processes show lists, the sample events PerfView's baseline prints
# found with the same process, thread and address, each of the top
# modules of two processes given the same samples whose leaf is in it,
# and each of their top JIT-compiled .NET methods (named by the CLR's
# method events) given the same samples.
. "$(dirname "$0")/lib.sh"
attrib() {
	python3 "$PD_ROOT/tests/tools/etl_attrib.py" "$@"
}
for n in net.4.5.2.x64 gcevents gcrundownevents; do
	have_extra "etl/perfview-$n.etl.zip" || continue
	E=$PD_CORPUS/etl/perfview-$n.etl.zip
	B=$PD_CORPUS/etl/perfview-$n.baseline.txt
	pv=$(sed -n 's/^COUNT Windows Kernel\/PerfInfo\/Sample:\([0-9]*\).*/\1/p' "$B")
	pv=${pv:-0}
	# the samples PerfView's baseline prints, as --find PID:TID:IP, and the
	# two processes with the most samples by perfdiff's note
	finds=$(sed -n 's/^EVENT .*: Windows Kernel\/PerfInfo\/Sample PID=\([0-9]*\); TID=\([0-9]*\);.* InstructionPointer=\(0x[0-9a-f]*\);.*/--find \1:\2:\3/p' "$B")
	pd show "$E" >/dev/null 2>"$T/note"
	top=$(sed -n 's/.*processes by samples: \(.*\) (--process.*/\1/p' "$T/note" |
		tr ',' '\n' | sed -n 's/.*(\([0-9]*\)) [0-9]*$/--process \1/p' | head -n 2)
	# shellcheck disable=SC2086
	if ! attrib "$E" $finds $top >"$T/a.json" 2>"$T/a.err"; then
		not_ok "$n: etl_attrib.py: $(head -c 300 "$T/a.err")"
		continue
	fi
	got=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["samples"])' "$T/a.json")
	if [ "$got" = "$pv" ]; then ok; else
		not_ok "$n: $got samples outside the idle loop, PerfView counts $pv"; fi
	if [ "$pv" = 0 ]; then
		expect_exit 2 pd show "$E"
		expect_grep "the trace holds no CPU samples" "$T/err"
		continue
	fi
	# every baseline sample found, with its process and thread
	if python3 - "$T/a.json" <<'PY'; then ok; else not_ok "$n: the baseline's samples"; fi
import json, sys
found = json.load(open(sys.argv[1])).get("found", {})
missing = [k for k, v in found.items() if v == 0]
assert found and not missing, "not found: %s" % missing
PY
	# samples by process: the same processes, the same counts, adding up
	if python3 - "$T/a.json" "$T/note" "$pv" <<'PY'; then ok; else not_ok "$n: samples by process"; fi
import json, re, sys
mine = json.load(open(sys.argv[1]))["processes"]
note = re.search(r"processes by samples: (.*) \(--process", open(sys.argv[2]).read())
assert note, "no 'processes by samples' note"
pd = {}
for item in note.group(1).split(", "):
    m = re.fullmatch(r"(.*) (\d+)", item)
    pd[m.group(1)] = int(m.group(2))
assert sum(pd.values()) == int(sys.argv[3]), "perfdiff's add up to %d" % sum(pd.values())
diff = {k: (mine.get(k), pd.get(k)) for k in set(mine) | set(pd) if mine.get(k) != pd.get(k)}
assert not diff, "name (pid): (etl_attrib.py, perfdiff): %s" % diff
PY
	# leaf modules of the top two processes: each of the top 5 modules
	# holds as many samples in perfdiff's self samples as by the address
	# of the samples themselves (JIT-compiled code, in no image, is left
	# out on both sides)
	for pid in $(printf '%s\n' "$top" | sed 's/--process //'); do
		expect_exit 0 pd show -f json --process "$pid" "$E"
		if python3 - "$T/a.json" "$T/out" "$pid" <<'PY'
import json, sys
mine = json.load(open(sys.argv[1]))["modules"][sys.argv[3]]
pd = {}
for f in json.load(open(sys.argv[2]))["functions"]:
    if f.get("module"):
        pd[f["module"]] = pd.get(f["module"], 0) + f["self_samples"]
top = sorted(mine, key=lambda m: -mine[m])[:5]
diff = {m: (mine[m], pd.get(m, 0)) for m in top if mine[m] != pd.get(m, 0)}
assert len(top) == 5 and not diff, "module: (etl_attrib.py, perfdiff): %s" % diff
PY
		then ok; else
			not_ok "$n: modules of process $pid"
			# where they part: leaf addresses by the samples' own against
			# the leaf frames of perfdiff's stacks
			pd show -f folded --counts --process "$pid" "$E" 2>/dev/null >"$T/f"
			python3 - "$T/a.json" "$T/f" "$pid" <<'PY' >&2
import json, sys
mine = json.load(open(sys.argv[1]))["leaves"][sys.argv[3]]
pd = {}
for line in open(sys.argv[2]):
    stack, n = line.rsplit(" ", 1)
    leaf = stack.split(";")[-1]
    if "!+0x" in leaf:
        pd[leaf] = pd.get(leaf, 0) + int(n)
for k in sorted(set(mine) | set(pd)):
    if mine.get(k, 0) != pd.get(k, 0):
        print("  leaf %s: %d by address, %d in perfdiff's stacks" % (k, mine.get(k, 0), pd.get(k, 0)))
PY
		fi
		# .NET methods: each of the top 5 JIT-compiled methods, named by
		# the CLR's method events, holds as many samples by the leaf of
		# the samples' stacks, and by their own address, as perfdiff's
		# self samples of the function of that name in no module
		if python3 - "$T/a.json" "$T/out" "$pid" <<'PY'
import json, sys
a, pid = json.load(open(sys.argv[1])), sys.argv[3]
by_leaf, by_ip = a["stack_methods"][pid], a["methods"][pid]
pd = {}
for f in json.load(open(sys.argv[2]))["functions"]:
    if not f.get("module"):
        pd[f["function"]] = pd.get(f["function"], 0) + f["self_samples"]
top = sorted(by_leaf, key=lambda m: (-by_leaf[m], m))[:5]
diff = {m: (by_leaf[m], by_ip.get(m, 0), pd.get(m, 0)) for m in top
        if not by_leaf[m] == by_ip.get(m, 0) == pd.get(m, 0)}
assert len(top) == 5 and not diff, \
    "method: (etl_attrib.py by stack leaf, by address, perfdiff): %s (top %s)" % (diff, top)
PY
		then ok; else not_ok "$n: .NET methods of process $pid"; fi
	done
done
finish
