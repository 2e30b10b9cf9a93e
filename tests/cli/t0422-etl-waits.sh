#!/bin/sh
# Off-CPU time of an ETW trace (docs/formats.md, "Windows ETW traces"):
# a trace written from the published layouts by tests/tools/etl_make.py,
# with known waits. Counted by hand, in the trace's 100 ns ticks:
#   thread 101: 4 CPU samples of 1 ms in App.Compute; switched out at
#     2000 (waiting, UserRequest), back at 52000 with App.ReadFile on its
#     stack under ntdll and the kernel: 5 ms blocked, App.ReadFile's;
#     out at 72000 preempted (Ready), back at 82000 in App.Compute: 1 ms
#     ready; out at 92000, back at 99000 with no stack: left out;
#   thread 102: out at 52000 (waiting), back at 72000 in App.HoldLock:
#     2 ms blocked; out at 82000 terminated: no wait follows.
# 4 ms of CPU and 8 ms of waiting: 12 ms.
. "$(dirname "$0")/lib.sh"
cat >"$T/cs.json" <<'J'
{"processes": [{"pid": 100, "name": "app.exe"}],
 "threads": [{"pid": 100, "tid": 101}, {"pid": 100, "tid": 102}],
 "images": [{"pid": 100, "base": 140703128616960, "size": 1048576, "path": "C:\\Windows\\System32\\ntdll.dll"},
            {"pid": 0, "base": 18446735277616529408, "size": 1048576, "path": "C:\\Windows\\system32\\ntoskrnl.exe"}],
 "methods": [{"pid": 100, "start": 805306368, "size": 256, "namespace": "App", "name": "Main"},
             {"pid": 100, "start": 805306624, "size": 256, "namespace": "App", "name": "Compute"},
             {"pid": 100, "start": 805306880, "size": 256, "namespace": "App", "name": "ReadFile"},
             {"pid": 100, "start": 805307136, "size": 256, "namespace": "App", "name": "HoldLock"},
             {"pid": 100, "start": 805307392, "size": 256, "namespace": "App", "name": "Worker"}],
 "samples": [{"tid": 101, "ip": 805306640, "user": [805306640, 805306384], "count": 4}],
 "cswitches": [
  {"at": 2000, "old": 101, "new": 102},
  {"at": 52000, "old": 102, "new": 101, "kernel": [18446735277616533504],
   "user": [140703128621056, 805306896, 805306384]},
  {"at": 72000, "old": 101, "new": 102, "state": 1,
   "user": [140703128621056, 805307152, 805307408]},
  {"at": 82000, "old": 102, "new": 101, "state": 4,
   "user": [805306640, 805306384]},
  {"at": 92000, "old": 101, "new": 0},
  {"at": 99000, "old": 0, "new": 101}]}
J
python3 "$PD_ROOT/tests/tools/etl_make.py" "$T/cs.json" "$T/cs.etl" ||
	not_ok "etl_make"
expect_exit 0 pd show "$T/cs.etl"
expect_grep "etl, 12 samples, total 12.000 ms" "$T/out"
expect_grep " 5.000  41.67%        5.000  41.67%  App.ReadFile (blocked)$" "$T/out"
expect_grep " 4.000  33.33%        5.000  41.67%  App.Compute$" "$T/out"
expect_grep " 2.000  16.67%        2.000  16.67%  App.HoldLock (blocked)$" "$T/out"
expect_grep " 1.000   8.33%        1.000   8.33%  App.Compute (ready)$" "$T/out"
# ntdll's and the kernel's frames are no part of a wait's stack
expect_no_grep "ntdll\|ntoskrnl" "$T/out"
expect_grep "read process app.exe (100), the one with the most samples (4 of 4)" "$T/err"
expect_grep "off-CPU time from 3 context switches (Thread/CSwitch), each to the thread's next switch-in" "$T/err"
expect_grep "1 waits between context switches have no stack and were left out (record with -stackwalk CSwitch)" "$T/err"
expect_no_grep "context switches, which perfdiff does not compare" "$T/err"
# one thread's waits with its CPU
expect_exit 0 pd show --thread 102 "$T/cs.etl"
expect_grep "total 2.000 ms" "$T/out"
# the same trace twice, App.ReadFile's wait made 15 ms: it alone moved
python3 - "$T/cs.json" "$T/cs2.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["cswitches"]:
    c["at"] += 100000 if c["at"] >= 52000 else 0
json.dump(d, open(sys.argv[2], "w"))
PY
python3 "$PD_ROOT/tests/tools/etl_make.py" "$T/cs2.json" "$T/cs2.etl" ||
	not_ok "etl_make 2"
pd -f json "$T/cs.etl" "$T/cs2.etl" >"$T/d.json" 2>"$T/err"
python3 - "$T/d.json" <<'PY' && ok || not_ok "App.ReadFile's wait in the diff"
import json, sys
d = json.load(open(sys.argv[1]))
f = {r["function"]: r["self"] for r in d["functions"]}
r = f["App.ReadFile (blocked)"]
assert abs(r["baseline"] - 5e6) < 1 and abs(r["candidate"] - 15e6) < 1, r
assert f["App.Compute"]["delta_pct"] == 0, f["App.Compute"]
assert abs(f["App.HoldLock (blocked)"]["delta_pct"]) < 1e-9, f["App.HoldLock (blocked)"]
PY

# Dispatcher/ReadyThread splits a wait where its thread was readied, as
# PerfView's Thread Time view does (BLOCKED_TIME, then READIED_TIME):
#   101, out at 2000, readied at 51000 (by 102), back at 52000: 4.9 ms
#     blocked, 0.1 ms ready;
#   102, out at 52000, readied at 62000 and again at 65000 (by 101; the
#     first counts), back at 72000: 1 ms blocked, 1 ms ready;
#   101, out preempted at 72000 (ready already), "readied" at 75000:
#     1 ms ready, not split; readied at 60000 while it ran: nothing;
#   101, out at 92000, readied at 95000, back at 99000 with no stack:
#     left out, one wait.
python3 - "$T/cs.json" "$T/rd.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["readies"] = [{"at": 51000, "tid": 101, "by": 102},
                {"at": 60000, "tid": 101, "by": 101},
                {"at": 62000, "tid": 102, "by": 101},
                {"at": 65000, "tid": 102, "by": 101},
                {"at": 75000, "tid": 101, "by": 102},
                {"at": 95000, "tid": 101, "by": 0}]
json.dump(d, open(sys.argv[2], "w"))
PY
python3 "$PD_ROOT/tests/tools/etl_make.py" "$T/rd.json" "$T/rd.etl" ||
	not_ok "etl_make readies"
expect_exit 0 pd show "$T/rd.etl"
expect_grep "etl, 12 samples, total 12.000 ms" "$T/out"
expect_grep " 4.900  40.83%        4.900  40.83%  App.ReadFile (blocked)$" "$T/out"
expect_grep " 0.100   0.83%        0.100   0.83%  App.ReadFile (ready)$" "$T/out"
expect_grep " 1.000   8.33%        1.000   8.33%  App.HoldLock (blocked)$" "$T/out"
expect_grep " 1.000   8.33%        1.000   8.33%  App.HoldLock (ready)$" "$T/out"
expect_grep " 1.000   8.33%        1.000   8.33%  App.Compute (ready)$" "$T/out"
expect_grep " 4.000  33.33%        5.000  41.67%  App.Compute$" "$T/out"
expect_grep "off-CPU time from 3 context switches (Thread/CSwitch)" "$T/err"
expect_grep "2 of the waits were split where Dispatcher/ReadyThread readied the thread" "$T/err"
expect_grep "1 waits between context switches have no stack" "$T/err"
expect_no_grep "thread readyings" "$T/err"
# the lock held longer in the candidate: 102 readied at 70000 and 71000
sed 's/"at": 62000, "tid": 102/"at": 70000, "tid": 102/
s/"at": 65000, "tid": 102/"at": 71000, "tid": 102/' "$T/rd.json" >"$T/rd2.json"
python3 "$PD_ROOT/tests/tools/etl_make.py" "$T/rd2.json" "$T/rd2.etl" ||
	not_ok "etl_make readies 2"
pd -f json "$T/rd.etl" "$T/rd2.etl" >"$T/d.json" 2>"$T/err"
python3 - "$T/d.json" <<'PY' && ok || not_ok "HoldLock's blocked and ready parts in the diff"
import json, sys
d = json.load(open(sys.argv[1]))
f = {r["function"]: r["self"] for r in d["functions"]}
b, r = f["App.HoldLock (blocked)"], f["App.HoldLock (ready)"]
assert abs(b["baseline"] - 1e6) < 1 and abs(b["candidate"] - 1.8e6) < 1, b
assert abs(r["baseline"] - 1e6) < 1 and abs(r["candidate"] - 0.2e6) < 1, r
PY
finish
