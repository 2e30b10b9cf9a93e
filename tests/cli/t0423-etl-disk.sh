#!/bin/sh
# Disk I/O and hard faults of an ETW trace (docs/formats.md, "Windows
# ETW traces"), --event diskio and --event hardfault. Disk I/O: each DiskIo read or write is the service time of the
# function whose ReadInit/WriteInit stack issued it. A trace written from
# the published layouts by tests/tools/etl_make.py, counted by hand (the
# trace's clock: 100 ns ticks):
#   thread 101, App.LoadIndex: IRP 1 from 1000 (64 KiB, 30000 ticks:
#     3 ms), IRP 2 from 6000 (4 KiB, 1 ms), IRP 1 again from 10000 (4
#     KiB, 0.5 ms): 4.5 ms of reads;
#   thread 102, App.SaveLog: IRP 3 from 2000, a write of 8 KiB, 2 ms;
#   IRP 4 ends with no start in the trace: left out, counted;
#   IRP 5 from 14000 (4 KiB, 1 ms) has no stack: left out, counted.
# On the corpus's PerfView trace, each process's reads and writes, their
# bytes and service time are what a second reading finds
# (tests/tools/etl_attrib.py's walker: starts paired with ends by IRP).
. "$(dirname "$0")/lib.sh"
ntdll=140703128621056
K=18446735277616533504
cat >"$T/io.json" <<J
{"processes": [{"pid": 100, "name": "app.exe"}],
 "threads": [{"pid": 100, "tid": 101}, {"pid": 100, "tid": 102}],
 "images": [{"pid": 100, "base": 140703128616960, "size": 1048576, "path": "C:\\\\Windows\\\\System32\\\\ntdll.dll"},
            {"pid": 0, "base": 18446735277616529408, "size": 1048576, "path": "C:\\\\Windows\\\\system32\\\\ntoskrnl.exe"}],
 "methods": [{"pid": 100, "start": 805306368, "size": 256, "namespace": "App", "name": "Main"},
             {"pid": 100, "start": 805306624, "size": 256, "namespace": "App", "name": "LoadIndex"},
             {"pid": 100, "start": 805306880, "size": 256, "namespace": "App", "name": "SaveLog"}],
 "samples": [{"tid": 101, "ip": 805306640, "user": [805306640, 805306384], "count": 4}],
 "disks": [
  {"start": 1000, "end": 5000, "tid": 101, "irp": 1, "size": 65536, "service": 30000,
   "kernel": [$K], "user": [$ntdll, 805306640, 805306384]},
  {"start": 6000, "end": 9000, "tid": 101, "irp": 2, "size": 4096, "service": 10000,
   "user": [$ntdll, 805306640, 805306384]},
  {"start": 10000, "end": 12000, "tid": 101, "irp": 1, "size": 4096, "service": 5000,
   "user": [805306640, 805306384]},
  {"start": 2000, "end": 8000, "tid": 102, "irp": 3, "size": 8192, "service": 20000,
   "write": true, "user": [$ntdll, 805306896, 805306384]},
  {"start": 14000, "end": 15000, "tid": 101, "irp": 5, "size": 4096, "service": 10000}]}
J
python3 "$PD_ROOT/tests/tools/etl_make.py" "$T/io.json" "$T/io.etl" ||
	not_ok "etl_make"
expect_exit 0 pd show --event diskio "$T/io.etl"
expect_grep "etl, 6 samples, total 6.500 ms" "$T/out"
expect_grep " 4.500  69.23%        4.500  69.23%  App.LoadIndex (disk read)$" "$T/out"
expect_grep " 2.000  30.77%        2.000  30.77%  App.SaveLog (disk write)$" "$T/out"
expect_no_grep "ntdll\|ntoskrnl\|App.Main (" "$T/out"
expect_grep "disk I/O: 4 reads (0.1 MB, 5.5 ms) and 1 writes (0.0 MB, 2.0 ms)" "$T/err"
expect_grep "1 disk I/Os have no stack and were left out (record with -stackwalk DiskReadInit+DiskWriteInit)" "$T/err"
expect_no_grep "whose start the trace does not hold" "$T/err"
expect_no_grep "disk reads\|CPU samples" "$T/err"
# an end whose start came before the trace
python3 - "$T/io.json" "$T/io2.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["disks"].append({"start": 100, "end": 16000, "tid": 101, "irp": 4,
                   "size": 4096, "service": 10000, "drop_start": True})
json.dump(d, open(sys.argv[2], "w"))
PY
python3 "$PD_ROOT/tests/tools/etl_make.py" "$T/io2.json" "$T/io2.etl" ||
	not_ok "etl_make 2"
expect_exit 0 pd show --event diskio "$T/io2.etl"
expect_grep "1 disk I/Os whose start the trace does not hold were left out" "$T/err"
expect_grep "total 6.500 ms" "$T/out"
# the CPU profile names what it leaves
expect_exit 0 pd show "$T/io.etl"
expect_grep "the trace also holds 4 disk reads, 1 disk writes, which perfdiff does not compare yet (--event diskio, fileio or hardfault compares them): the profile is its CPU samples" "$T/err"
# a candidate whose first read is sixteen of 4 KiB, 0.5 ms each: App.LoadIndex
# reads the same bytes in 16 times the operations, 9.5 ms, not 4.5
python3 - "$T/io.json" "$T/io3.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
first = d["disks"].pop(0)
for i in range(16):
    d["disks"].append(dict(first, start=20000 + 100 * i, end=20050 + 100 * i,
                           irp=100 + i, size=4096, service=5000))
json.dump(d, open(sys.argv[2], "w"))
PY
python3 "$PD_ROOT/tests/tools/etl_make.py" "$T/io3.json" "$T/io3.etl" ||
	not_ok "etl_make 3"
pd --event diskio -f json "$T/io.etl" "$T/io3.etl" >"$T/d.json" 2>"$T/err"
python3 - "$T/d.json" <<'PY' && ok || not_ok "App.LoadIndex's reads in the diff"
import json, sys
d = json.load(open(sys.argv[1]))
f = {r["function"]: r["self"] for r in d["functions"]}
r = f["App.LoadIndex (disk read)"]
assert abs(r["baseline"] - 4.5e6) < 1 and abs(r["candidate"] - 9.5e6) < 1, r
assert abs(f["App.SaveLog (disk write)"]["delta_pct"]) < 1e-9, f["App.SaveLog (disk write)"]
PY
expect_grep "disk I/O: 19 reads (0.1 MB, 10.5 ms)" "$T/err"

# Hard faults (--event hardfault): each the time its thread waited for
# the page, from the fault's start to the event, of the function on the
# thread's stack then: App.LoadIndex 2 faults, 1 + 3 ms; App.SaveLog 1,
# 0.5 ms; one without a stack, left out.
python3 - "$T/io.json" "$T/hf.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["hardfaults"] = [
    {"start": 30000, "at": 40000, "tid": 101, "bytes": 4096,
     "user": [805306640, 805306384]},
    {"start": 41000, "at": 71000, "tid": 101, "bytes": 32768,
     "kernel": [18446735277616533504], "user": [805306640, 805306384]},
    {"start": 50000, "at": 55000, "tid": 102, "bytes": 4096,
     "user": [805306896, 805306384]},
    {"start": 60000, "at": 61000, "tid": 102, "bytes": 4096}]
json.dump(d, open(sys.argv[2], "w"))
PY
python3 "$PD_ROOT/tests/tools/etl_make.py" "$T/hf.json" "$T/hf.etl" ||
	not_ok "etl_make hard faults"
expect_exit 0 pd show --event hardfault "$T/hf.etl"
expect_grep "etl, 4 samples, total 4.500 ms" "$T/out"
expect_grep " 4.000  88.89%        4.000  88.89%  App.LoadIndex (hard fault)$" "$T/out"
expect_grep " 0.500  11.11%        0.500  11.11%  App.SaveLog (hard fault)$" "$T/out"
expect_grep "4 hard faults (0.0 MB read in, 4.6 ms)" "$T/err"
expect_grep "1 hard faults have no stack and were left out (record with -stackwalk HardFault)" "$T/err"
expect_exit 2 pd show --event hardfault "$T/io.etl"
expect_grep "the trace holds no hard faults" "$T/err"
# a hard fault cut short: one line with its byte, exit 2; the CPU
# profile, which only counts them, reads the trace
python3 - "$T/hf.json" "$T/hfbad.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["hardfaults"][1]["short"] = True
json.dump(d, open(sys.argv[2], "w"))
PY
python3 "$PD_ROOT/tests/tools/etl_make.py" "$T/hfbad.json" "$T/hfbad.etl" ||
	not_ok "etl_make short hard fault"
expect_exit 2 pd show --event hardfault "$T/hfbad.etl"
expect_grep "^perfdiff: .*hfbad.etl: byte [0-9]* of the .etl: a hard fault shorter than its fields$" "$T/err"
[ "$(wc -l <"$T/err")" -eq 1 ] && ok || not_ok "more than one line: $(cat "$T/err")"
expect_exit 0 pd show "$T/hfbad.etl"

# File I/O (--event fileio): each read or write the time from its
# request (FileIo/Read, Write, with the requesting thread's stack) to
# its OperationEnd of the same IRP, its bytes the end's:
#   101, App.LoadIndex: IRP 7 from 80000 to 90000 (64 KiB, 1 ms), IRP 8
#     from 91000 to 93500 (4 KiB, 0.25 ms), IRP 7 again from 120000 to
#     122500 (4 KiB, 0.25 ms): 1.5 ms;
#   102, App.SaveLog: a write, IRP 9, 92000 to 112000 (8 KiB, 2 ms);
#   the end of another operation (IRP 10, no request): passed over.
python3 - "$T/io.json" "$T/fi.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
load = [805306640, 805306384]
d["files"] = [
    {"start": 80000, "end": 90000, "tid": 101, "irp": 7, "size": 65536,
     "user": [140703128621056] + load},
    {"start": 91000, "end": 93500, "tid": 101, "irp": 8, "size": 4096,
     "user": load},
    {"start": 120000, "end": 122500, "tid": 101, "irp": 7, "size": 8192,
     "done": 4096, "user": load},
    {"start": 92000, "end": 112000, "tid": 102, "irp": 9, "size": 8192,
     "write": True, "user": [805306896, 805306384]}]
d["file_ends"] = [{"at": 95000, "irp": 10}]
json.dump(d, open(sys.argv[2], "w"))
PY
python3 "$PD_ROOT/tests/tools/etl_make.py" "$T/fi.json" "$T/fi.etl" ||
	not_ok "etl_make files"
expect_exit 0 pd show --event fileio "$T/fi.etl"
expect_grep "etl, 4 samples, total 3.500 ms" "$T/out"
expect_grep " 2.000  57.14%        2.000  57.14%  App.SaveLog (file write)$" "$T/out"
expect_grep " 1.500  42.86%        1.500  42.86%  App.LoadIndex (file read)$" "$T/out"
expect_grep "file I/O: 3 reads (0.1 MB, 1.5 ms) and 1 writes (0.0 MB, 2.0 ms)" "$T/err"
expect_no_grep "left out" "$T/err"
expect_exit 0 pd show "$T/fi.etl"
expect_grep "4 disk reads, 1 disk writes, 3 file reads, 1 file writes, which perfdiff does not compare yet (--event diskio, fileio or hardfault compares them)" "$T/err"

# The corpus's PerfView trace: per process, against a second reading.
if ! have_corpus; then
	corpus_skipped "the corpus's trace"
	finish
	exit
fi
C=$PD_CORPUS/etl/perfview-net.4.5.2.x64.etl.zip
python3 - "$PD_ROOT/tests/tools" "$C" >"$T/ind" <<'PY'
import struct, sys
sys.path.insert(0, sys.argv[1])
import etl_attrib as ea
starts, per = {}, {}
for g, op, ver, tid, pid, t, ptr, p in ea.read_trace(sys.argv[2]):
    if g == 0x01 and op in (12, 13):
        starts[struct.unpack_from("<Q", p, 0)[0]] = pid
    elif g == 0x01 and op in (10, 11):
        irp, ticks = struct.unpack_from("<QQ", p, 24 + ptr)
        pid = starts.pop(irp, None)
        if pid is None:
            continue
        r = per.setdefault(pid, [[0, 0, 0], [0, 0, 0]])[op == 11]
        r[0] += 1
        r[1] += struct.unpack_from("<I", p, 8)[0]
        r[2] += ticks
for pid in sorted(per, key=lambda k: -sum(x[0] for x in per[k]))[:4]:
    (rn, rb, rt), (wn, wb, wt) = per[pid]
    # PerfFreq 10 MHz: ticks of 100 ns
    print("%d|%d reads (%.1f MB, %.1f ms) and %d writes (%.1f MB, %.1f ms)|%.3f"
          % (pid, rn, rb / 1e6, rt / 1e4, wn, wb / 1e6, wt / 1e4,
             (rt + wt) / 1e4))
PY
[ "$(wc -l <"$T/ind")" -eq 4 ] && ok || not_ok "the second reading: $(cat "$T/ind")"
while IFS='|' read -r pid what total; do
	expect_exit 0 pd show --event diskio --process "$pid" "$C"
	expect_grep "disk I/O: $what, each the service time" "$T/err"
	expect_grep "total $total ms" "$T/out"
done <"$T/ind"
# hard faults by the process of the thread that faulted (Thread events)
python3 - "$PD_ROOT/tests/tools" "$C" >"$T/hind" <<'PY'
import struct, sys
sys.path.insert(0, sys.argv[1])
import etl_attrib as ea
owner, per = {}, {}
for g, op, ver, tid, pid, t, ptr, p in ea.read_trace(sys.argv[2]):
    if g == 0x05 and op in (1, 3) and len(p) >= 8:
        ppid, ttid = struct.unpack_from("<II", p, 0)
        owner[ttid] = ppid
    elif g == 0x02 and op == 32:
        t0 = struct.unpack_from("<q", p, 0)[0]
        ttid, n = struct.unpack_from("<II", p, 16 + 2 * ptr)
        r = per.setdefault(owner.get(ttid), [0, 0, 0])
        r[0] += 1
        r[1] += n
        r[2] += t - t0
for pid in sorted(per, key=lambda k: -per[k][0])[:3]:
    n, b, t = per[pid]
    print("%d|%d hard faults (%.1f MB read in, %.1f ms)|%.3f"
          % (pid, n, b / 1e6, t / 1e4, t / 1e4))
PY
[ "$(wc -l <"$T/hind")" -eq 3 ] && ok || not_ok "the second reading of hard faults: $(cat "$T/hind")"
while IFS='|' read -r pid what total; do
	expect_exit 0 pd show --event hardfault --process "$pid" "$C"
	expect_grep "$what, each the time" "$T/err"
	expect_grep "total $total ms" "$T/out"
done <"$T/hind"
finish
