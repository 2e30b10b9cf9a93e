#!/bin/sh
# The switch log of off-CPU time is bounded (src/core/limits.h,
# PD_LIMIT_PERF_SWITCHES; docs/formats.md, "Off-CPU time"): a recording
# with more context switches, wakeups and switch-ins than the cap is
# refused in one line naming the file, the time of the first switch left
# out, the cap and the variable that raises it, exit 2; at the cap it is
# read. The fixture's count, by grep of its text: 162 sched_switch
# samples (each a switch-out), 8 of them switching to a thread other than
# the idle one (a switch-in), and 163 PERF_RECORD_SWITCH IN lines: 333.
. "$(dirname "$0")/lib.sh"
F="$PD_ROOT/fixtures/perfdata"
mkdir -p "$T/home"
HOME="$T/home"
PERF_BUILDID_DIR="$T/home/none"
export HOME PERF_BUILDID_DIR
gzip -dc "$F/offcpu.perf.txt.gz" >"$T/offcpu.txt"
lim() { PERFDIFF_LIMIT_PERF_SWITCHES=$1 && export PERFDIFF_LIMIT_PERF_SWITCHES; }

outs=$(grep -c 'sched:sched_switch' "$T/offcpu.txt")
ins=$(grep 'sched:sched_switch' "$T/offcpu.txt" | grep -c 'next_pid=[1-9]')
recs=$(grep -c 'PERF_RECORD_SWITCH IN' "$T/offcpu.txt")
nsw=$((outs + ins + recs))
[ "$nsw" -eq 333 ] && ok || not_ok "333 switches by grep, not $nsw"

for f in "$F/offcpu.data" "$T/offcpu.txt"; do
	lim "$nsw"
	expect_exit 0 pd show "$f"
	expect_grep "off-CPU time from 162 context switches" "$T/err"
	lim "$((nsw - 1))"
	expect_exit 2 pd show "$f"
	expect_grep "^perfdiff: $f: at time 665\.[0-9]* s: over perfdiff's limit of 332 context switches" "$T/err"
	expect_grep "PERFDIFF_LIMIT_PERF_SWITCHES=N raises it" "$T/err"
	expect_lines 1 "$T/err"
	[ ! -s "$T/out" ] && ok || not_ok "nothing on stdout"
	lim lots
	expect_exit 2 pd show "$f"
	expect_grep "PERFDIFF_LIMIT_PERF_SWITCHES=lots: not a whole number" "$T/err"
done

# A text of 60 copies, each 10 s after the one before, is over 8 MiB and
# read in pieces on threads: the pieces' logs merged are held to the cap.
python3 - "$T/offcpu.txt" "$T/big.txt" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
stamp = re.compile(r"^(.*? )(\d+\.\d+)(: )", re.M)
with open(sys.argv[2], "w") as out:
    for k in range(60):
        out.write(stamp.sub(lambda m: "%s%.6f%s" % (
            m.group(1), float(m.group(2)) + 10 * k, m.group(3)), text))
PY
unset PERFDIFF_LIMIT_PERF_SWITCHES
[ "$(wc -c <"$T/big.txt")" -gt 8388608 ] && ok || not_ok "the copies are over 8 MiB"
lim "$((60 * nsw))"
expect_exit 0 pd show "$T/big.txt"
expect_grep "off-CPU time from 9720 context switches" "$T/err"
lim "$((60 * nsw - 1))"
expect_exit 2 pd show "$T/big.txt"
expect_grep "over perfdiff's limit of 19979 context switches" "$T/err"
expect_lines 1 "$T/err"
finish
