#!/bin/sh
# perf script text: what perf prints around a sample's own frame and
# thread is read as perf means it (docs/formats.md, "perf script").
. "$PD_ROOT/tests/cli/lib.sh"

# Self samples per function and module, one line each, sorted.
funcs() {
	pd show -f json --top 1000 "$1" | python3 -c '
import json, sys
for f in json.load(sys.stdin)["functions"]:
    print("%s [%s] %d" % (f["function"], f["module"], f["self_samples"]))
' | sort
}

# perf mem / record -d -W: the data address, data source (raw and
# decoded) and weight printed before the sample's address are not part
# of the function's name. The three files are one recording (a
# memory-bound loop, perf record -d -W) printed three ways: plain, with
# the data address, and with every memory field.
F=$PD_ROOT/fixtures/perf
funcs "$F/mem-plain.perf.txt.gz" >"$T/plain"
funcs "$F/mem-fields.perf.txt.gz" >"$T/fields"
funcs "$F/addr-field.perf.txt.gz" >"$T/addr"
expect_grep "^main \[memt\] 125$" "$T/plain"
if cmp -s "$T/plain" "$T/fields"; then ok; else
	not_ok "memory fields change the functions: $(diff "$T/plain" "$T/fields" | head -5)"
fi
if cmp -s "$T/plain" "$T/addr"; then ok; else
	not_ok "the data address changes the functions: $(diff "$T/plain" "$T/addr" | head -5)"
fi
expect_no_grep "|OP" "$T/fields"

# A function whose name is hex digits alone is still its name, with and
# without a data address before the sample's address.
cat >"$T/hexname.txt" <<'X'
prog 10 100.000001:     1000 cpu-clock:      401136 add (/bin/prog)
prog 10 100.000002:     1000 cpu-clock:  7ffd0000 401140 add (/bin/prog)
prog 10 100.000003:     1000 cpu-clock:  7ffd0000 401150 main (/bin/prog)
prog 10 100.000004:     1000 cpu-clock:      401150 main+0x10 (/bin/prog)
prog 10 100.000005:     1000 cpu-clock:      401160 deface
X
funcs "$T/hexname.txt" >"$T/hex"
expect_grep "^add \[prog\] 2$" "$T/hex"
expect_grep "^main \[prog\] 2$" "$T/hex"
expect_grep "^deface \[\] 1$" "$T/hex"

# Consecutive samples of one thread and CPU: perf right-aligns the
# command in 16 columns; the second line (read by the repeated-header
# shortcut) names the same thread, not its leading blanks.
cat >"$T/swapper.txt" <<'X'
         swapper     0 [000]  1000.000001:     250000 cpu-clock:pppH: 
	ffffffff81000001 idle+0x1 ([kernel.kallsyms])

         swapper     0 [000]  1000.000251:     250000 cpu-clock:pppH: 
	ffffffff81000001 idle+0x1 ([kernel.kallsyms])

X
expect_exit 0 pd "$T/swapper.txt" "$T/swapper.txt" -f json
python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["baseline"]["threads"]
assert t == ["swapper"], t
' "$T/out" && ok || not_ok "threads of repeated headers: $(head -c 300 "$T/out")"
expect_exit 0 pd show "$T/swapper.txt" --thread swapper
expect_grep "2 samples" "$T/out"

finish
