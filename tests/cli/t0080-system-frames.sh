#!/bin/sh
# System frames (kernel, interrupts, page faults, drivers) are set apart:
# their changes are reported in their own section and never make the
# verdict or the exit status, and their time stays out of the program's
# totals, unless --system include. Two identical builds whose recordings
# differ only in the kernel's page clearing and softirqs, as on a busy
# machine; counts written by hand.
. "$(dirname "$0")/lib.sh"

# perf_sample FILE N LEAF-LINE...: N samples of main -> the given frames
# (leaf first), each of period 1000000 ns, spread evenly over 3 seconds
# (time in bursts is another test's: t0081).
perf_samples() {
	f=$1 n=$2
	shift 2
	i=0
	while [ $i -lt "$n" ]; do
		us=$((i * 3000000 / n))
		printf 'app  42  %d.%06d:    1000000 cpu-clock:pppH: \n' \
			$((100 + us / 1000000)) $((us % 1000000)) >>"$f"
		for fr in "$@"; do
			printf '\t%s\n' "$fr" >>"$f"
		done
		printf '\t            1092 main+0x32 (/opt/app/app)\n' >>"$f"
		printf '\t           2724a __libc_start_call_main+0x7a (/usr/lib/libc.so.6)\n\n' >>"$f"
		i=$((i + 1))
	done
}
PARSE='            11fb parse_record+0x2b (/opt/app/app)'
HASH='            1300 hash_key+0x10 (/opt/app/app)'
CLEAR='ffffffff8f9a1b2c clear_page_erms+0x1c ([kernel.kallsyms])'
FAULT='ffffffff8f9a0000 exc_page_fault+0x20 ([kernel.kallsyms])'
SOFT='ffffffff8fa00000 handle_softirqs+0x40 ([kernel.kallsyms])'
IRQ='ffffffff8fa10000 asm_sysvec_apic_timer_interrupt+0x1a ([kernel.kallsyms])'

# The program's work is the same on both sides: parse 2000, hash 1000.
for side in base cand; do
	perf_samples "$T/$side.perf.txt" 2000 "$PARSE"
	perf_samples "$T/$side.perf.txt" 1000 "$HASH"
done
# The kernel's share differs: page clearing 1 -> 220 under parse_record,
# softirqs 4 -> 380 on the interrupt path under hash_key.
perf_samples "$T/base.perf.txt" 1 "$CLEAR" "$FAULT" "$PARSE"
perf_samples "$T/base.perf.txt" 4 "$SOFT" "$IRQ" "$HASH"
perf_samples "$T/cand.perf.txt" 220 "$CLEAR" "$FAULT" "$PARSE"
perf_samples "$T/cand.perf.txt" 380 "$SOFT" "$IRQ" "$HASH"

expect_exit 0 pd -f json "$T/base.perf.txt" "$T/cand.perf.txt"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "system frames set apart"; fi
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: x for x in d["functions"]}
assert d["verdict"] in ("same", "inconclusive"), d["verdict"]
# the program's totals hold the program's time only
for name, n in (("parse_record", 2000), ("hash_key", 1000), ("main", 3000)):
    t = f[name]["total"]
    assert (t["baseline_samples"], t["candidate_samples"]) == (n, n), (name, t)
    assert t["status"] in ("same", "inconclusive"), (name, t)
    assert not f[name]["system"]
# the kernel's changes are there, marked, with their own counts
c = f["clear_page_erms"]
assert c["system"] and c["self"]["status"] == "regressed", c
assert (c["self"]["baseline_samples"], c["self"]["candidate_samples"]) == (1, 220)
s = f["handle_softirqs"]
assert (s["self"]["baseline_samples"], s["self"]["candidate_samples"]) == (4, 380)
assert f["exc_page_fault"]["system"] and f["asm_sysvec_apic_timer_interrupt"]["system"]
# the profile total is the program's: 3000 on both sides; the rest is apart
assert (d["total"]["baseline_samples"], d["total"]["candidate_samples"]) == (3000, 3000), d["total"]
assert d["baseline"]["system_set_apart"] == 5e6, d["baseline"]
assert d["candidate"]["system_set_apart"] == 600e6, d["candidate"]
PY
expect_exit 0 pd "$T/base.perf.txt" "$T/cand.perf.txt"
expect_grep "4 system frames changed (set apart)" "$T/out"
expect_grep "system and unnamed library frames, set apart (not in the verdict" "$T/out"
expect_grep "regressed.*clear_page_erms" "$T/out"
expect_exit 0 pd -f md "$T/base.perf.txt" "$T/cand.perf.txt"
expect_grep "System and unnamed library frames, set apart (4; not in the verdict)" "$T/out"

# Asked to, perfdiff judges them like the program's: exit 1.
expect_exit 1 pd --system include -f json "$T/base.perf.txt" "$T/cand.perf.txt"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "--system include"; fi
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: x for x in d["functions"]}
assert d["verdict"] == "regressed"
assert not f["clear_page_erms"]["system"]
t = f["main"]["total"]
assert (t["baseline_samples"], t["candidate_samples"]) == (3005, 3600), t
PY
expect_exit 2 pd --system sometimes "$T/base.perf.txt" "$T/cand.perf.txt"
expect_grep "system wants include or exclude" "$T/err"

# A real regression of the program still is one, kernel noise or not.
perf_samples "$T/slow.perf.txt" 2600 "$PARSE"
perf_samples "$T/slow.perf.txt" 1000 "$HASH"
perf_samples "$T/slow.perf.txt" 300 "$CLEAR" "$FAULT" "$PARSE"
expect_exit 1 pd "$T/base.perf.txt" "$T/slow.perf.txt"
expect_grep "regressed.*parse_record" "$T/out"

# Folded stacks: the collapsers' _[k] mark says kernel.
printf 'app;main;parse_record 2000\napp;main;parse_record;exc_page_fault_[k];clear_page_erms_[k] 2\n' >"$T/a.folded"
printf 'app;main;parse_record 2000\napp;main;parse_record;exc_page_fault_[k];clear_page_erms_[k] 300\n' >"$T/b.folded"
expect_exit 0 pd --sample-weight 1 -f json "$T/a.folded" "$T/b.folded"
expect_no_grep "weigh samples differently" "$T/err"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "folded _[k] frames"; fi
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: x for x in d["functions"]}
assert f["clear_page_erms"]["system"] and f["clear_page_erms"]["self"]["status"] == "regressed"
assert f["parse_record"]["total"]["candidate_samples"] == 2000, f["parse_record"]
assert d["verdict"] != "regressed"
PY
# show lists one profile whole: totals with the kernel's time.
expect_exit 0 pd show -f json "$T/cand.perf.txt"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "show keeps whole totals"; fi
import json, sys
f = {x["function"]: x for x in json.load(open(sys.argv[1]))["functions"]}
assert f["main"]["total_samples"] == 3600, f["main"]
PY
finish
