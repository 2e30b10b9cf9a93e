#!/bin/sh
# Off-CPU time from perf script text (docs/formats.md, "Off-CPU time"):
# fixtures/perf/offcpu.perf.txt is written by hand in the layout this
# machine's perf 6.1 prints for `perf record -e cpu-clock -e
# sched:sched_switch --switch-events -g` and `perf script
# --show-switch-events`. Counted by hand from its times:
#   thread 100: 2 cpu-clock samples of 1 ms in compute;
#     switched out at 1.001 (S, wait_timer's nanosleep), back in at
#     1.004: 3 ms blocked;
#     out at 1.006 (D, read_file's read), in at 1.016: 10 ms io;
#     out at 1.017 (R+, preempted in compute), in at 1.019: 2 ms ready;
#     out at 1.020 (S) and never back: left out;
#   thread 200: out at 1.000 (S, take_lock's mutex), the switch at 1.017 names it as
#     next_pid: 17 ms blocked;
#   thread 300: out at 1.010 exiting (X): no wait.
# Waiting 3 + 10 + 2 + 17 = 32 ms beside 2 ms of CPU: 34 ms. Wakeups
# added to it split two of the waits (below).
. "$(dirname "$0")/lib.sh"
F=$PD_ROOT/fixtures/perf/offcpu.perf.txt
expect_exit 0 pd show "$F"
expect_grep "perf-script, 34 samples, total 34.000 ms" "$T/out"
expect_grep "17.000  50.00%       17.000  50.00%  take_lock (blocked) \[app\]" "$T/out"
expect_grep "10.000  29.41%       10.000  29.41%  read_file (io) \[app\]" "$T/out"
expect_grep " 3.000   8.82%        3.000   8.82%  wait_timer (blocked) \[app\]" "$T/out"
expect_grep " 2.000   5.88%        2.000   5.88%  compute (ready) \[app\]" "$T/out"
expect_grep " 2.000   5.88%        4.000  11.76%  compute \[app\]" "$T/out"
expect_grep " 0.000   0.00%       10.000  29.41%  read_file \[app\]" "$T/out"
# the scheduler's frames and the C library's are no part of a wait's
# stack: each wait is the program's function's that called read,
# nanosleep or pthread_mutex_lock
expect_no_grep "__schedule\|do_nanosleep\|io_schedule\|do_task_dead\|libc.so" "$T/out"
expect_grep "off-CPU time from 4 context switches, each to the thread's next switch-in: 32.0 ms waiting beside 2.0 ms on CPU" "$T/err"
expect_grep "1 of the switch-outs had no switch-in of their thread after them and were left out" "$T/err"
expect_no_grep "also in the file\|unrecognised" "$T/err"

# --thread keeps one thread's time, waits included
expect_exit 0 pd show --thread worker "$F"
expect_grep "perf-script, 17 samples, total 17.000 ms" "$T/out"

# Without CPU samples the waits are the profile, in ns.
python3 - "$F" >"$T/waits.txt" <<'PY'
import sys
drop = False
for line in open(sys.argv[1]):
    if "cpu-clock:" in line:
        drop = True
    if not drop:
        sys.stdout.write(line)
    if line == "\n":
        drop = False
PY
expect_exit 0 pd show "$T/waits.txt"
expect_grep "total 32.000 ms" "$T/out"
expect_grep "off-CPU time from 4 context switches, each to the thread's next switch-in: 32.0 ms waiting beside 0.0 ms on CPU" "$T/err"

# Switch-outs beside CPU samples with no switch-in: the CPU profile, and
# a note saying how to record the rest.
grep -v "PERF_RECORD_SWITCH" "$F" | sed 's/next_pid=[0-9]*/next_pid=0/' >"$T/noin.txt"
expect_exit 0 pd show "$T/noin.txt"
expect_grep "total 2.000 ms" "$T/out"
expect_grep "5 context switches (sched:sched_switch) not read as off-CPU time: the file has no switch-ins; record with perf record --switch-events and print with perf script --show-switch-events" "$T/err"
# without the switch-in lines only the worker's wait ends (app's
# preemption names it as next_pid), none of app's
grep -v "PERF_RECORD_SWITCH" "$F" >"$T/some.txt"
expect_exit 0 pd show "$T/some.txt"
expect_grep "total 19.000 ms" "$T/out"
expect_grep "off-CPU time from 1 context switches, each to the thread's next switch-in: 17.0 ms waiting beside 2.0 ms on CPU" "$T/err"
expect_grep "4 of the switch-outs had no switch-in of their thread after them and were left out" "$T/err"
# switch-ins, but none after a switch-out of its thread
grep -v "PERF_RECORD_SWITCH IN" "$F" | sed 's/next_pid=200/next_pid=0/' >"$T/before.txt"
expect_exit 0 pd show "$T/before.txt"
expect_grep "total 2.000 ms" "$T/out"
expect_grep "5 context switches (sched:sched_switch) not read as off-CPU time: none has a switch-in of its thread after it" "$T/err"

# CPU samples that are not time (cycles) are not added to waited ns.
sed 's/1000000 cpu-clock:/1000000 cycles:/' "$F" >"$T/cycles.txt"
expect_exit 0 pd show "$T/cycles.txt"
expect_grep "perf-script, 2 samples, total 2000000 events" "$T/out"
expect_grep "not read as off-CPU time: the CPU samples are not of time; record them with -e cpu-clock" "$T/err"

# sched:sched_wakeup splits a wait where its thread was woken: its kind
# until then, ready (waiting for a CPU) after. Added, counted by hand:
#   100 woken at 1.012 (its read done; out 1.006 D, in 1.016): 6 ms io,
#     4 ms ready, both read_file's;
#   100 woken at 1.018 while preempted (R+, out 1.017): not split;
#   200 woken at 1.005 and again at 1.010 (out 1.000 S, in 1.017): the
#     first counts, 5 ms blocked and 12 ms ready;
#   100 woken at 1.0045 while it ran, 300 after it exited: nothing.
cp "$F" "$T/wake.txt"
for w in "app 100 1.012000 100" "worker 200 1.018000 100" \
	"app 100 1.005000 200" "app 100 1.010000 200" \
	"worker 200 1.004500 100" "app 100 1.011000 300"; do
	set -- $w
	printf '%s   %s [000]     %s: sched:sched_wakeup: comm=x pid=%s prio=120 target_cpu=000\n\tffffffff8110a1c0 try_to_wake_up+0x0 ([kernel.kallsyms])\n\n' \
		"$1" "$2" "$3" "$4" >>"$T/wake.txt"
done
expect_exit 0 pd show "$T/wake.txt"
expect_grep "perf-script, 34 samples, total 34.000 ms" "$T/out"
expect_grep "12.000  35.29%       12.000  35.29%  take_lock (ready) \[app\]" "$T/out"
expect_grep " 6.000  17.65%        6.000  17.65%  read_file (io) \[app\]" "$T/out"
expect_grep " 5.000  14.71%        5.000  14.71%  take_lock (blocked) \[app\]" "$T/out"
expect_grep " 4.000  11.76%        4.000  11.76%  read_file (ready) \[app\]" "$T/out"
expect_grep " 3.000   8.82%        3.000   8.82%  wait_timer (blocked) \[app\]" "$T/out"
expect_grep " 2.000   5.88%        2.000   5.88%  compute (ready) \[app\]" "$T/out"
expect_grep "off-CPU time from 4 context switches, each to the thread's next switch-in: 32.0 ms waiting beside 2.0 ms on CPU" "$T/err"
expect_grep "2 of the waits were split where sched:sched_wakeup woke the thread" "$T/err"
expect_no_grep "also in the file\|try_to_wake_up" "$T/err"
expect_no_grep "try_to_wake_up" "$T/out"
# the wakeups alone: not a profile of their own without --event
grep -A2 "sched_wakeup" "$T/wake.txt" >"$T/wakeonly.txt"
expect_exit 2 pd show "$T/wakeonly.txt"
expect_grep "only sched:sched_wakeup samples" "$T/err"
expect_exit 0 pd show --event sched:sched_wakeup "$T/wakeonly.txt"
expect_grep "perf-script, 6 samples, total 6 samples" "$T/out"

# --event sched:sched_switch: the switches as samples, one each.
expect_exit 0 pd show --event sched:sched_switch "$F"
expect_grep "perf-script, 6 samples, total 6 samples" "$T/out"

# A diff: the candidate's read waits 20 ms, not 10 (thread 100's times
# after it 10 ms later, so the worker, readied at its preemption, waits
# 27 ms), its CPU unchanged: read_file (io) moved by +100 %.
python3 - "$F" >"$T/cand.txt" <<'PY'
import re, sys
for line in open(sys.argv[1]):
    m = re.match(r"(app +100 +(?:\[\d+\] +)?)(\d+\.\d+)(:.*)", line, re.S)
    if m and float(m.group(2)) > 1.0065:
        line = "%s%.6f%s" % (m.group(1), float(m.group(2)) + 0.010, m.group(3))
    sys.stdout.write(line)
PY
expect_exit 0 pd show "$T/cand.txt"
expect_grep "20.000 .* read_file (io) \[app\]" "$T/out"
expect_grep "27.000 .* take_lock (blocked) \[app\]" "$T/out"
pd "$F" "$T/cand.txt" --format json >"$T/d.json" 2>"$T/err"
python3 - "$T/d.json" <<'PY' || not_ok "read_file (io)'s delta in the JSON report"
import json, sys
d = json.load(open(sys.argv[1]))
f = {r["function"]: r for r in d["functions"]}
r = f["read_file (io)"]["self"]
assert abs(r["baseline"] - 10e6) < 1 and abs(r["candidate"] - 20e6) < 1, r
assert abs(r["delta_pct"] - 100) < 1e-6, r
assert f["compute"]["self"]["delta_pct"] == 0, f["compute"]
PY
finish
