#!/bin/sh
# WPA memory tables with stacks, exported as CSV like CPU Usage: Heap
# Allocations (Stack, Count, Impacting Size, Size, Type) and VirtualAlloc
# Commit LifeTimes (Commit Stack, Count, Impacting Size, Size), as stacks
# and as the tree view (Line #, "|- " indentation). Read as exact memory
# profiles: bytes (or allocations with --metric blocks) per function, the
# allocator's frames (ntdll!RtlAllocateHeap, ucrtbase!malloc, operator
# new, KernelBase!VirtualAlloc...) cut from the leaf end, verdicts by the
# threshold alone. Files written here in WPA's column layout; every
# expected number is counted by hand in the comments.
. "$(dirname "$0")/lib.sh"

ROOT='[Root]/ntdll.dll!RtlUserThreadStart/kernel32.dll!BaseThreadInitThunk/app.exe!main'
heap() { # FILE BUILDINDEX_BYTES
	cat >"$1" <<EOF
Process,Handle,Type,Stack,Count,Impacting Size,Size
"app.exe (4321)",0x1f0000,AIFO,$ROOT/app.exe!LoadConfig/ucrtbase.dll!malloc/ntdll.dll!RtlAllocateHeap,3,3072,3072
"app.exe (4321)",0x1f0000,AIFO,$ROOT/app.exe!BuildIndex/app.exe!operator new/ucrtbase.dll!_malloc_base/ntdll.dll!RtlpAllocateHeapInternal,10,$2,$2
"app.exe (4321)",0x1f0000,AIFI,$ROOT/app.exe!BuildIndex/ucrtbase.dll!malloc/ntdll.dll!RtlAllocateHeap,5,0,1280
"other.exe (99)",0x2a0000,AIFO,[Root]/other.exe!main/ucrtbase.dll!malloc/ntdll.dll!RtlAllocateHeap,1,512,512
EOF
}
heap "$T/base.csv" 40960
heap "$T/cand.csv" 49152

# Impacting Size, by hand: BuildIndex 40960 + 0 (the AIFI row is freed
# inside the selection), LoadConfig 3072, other.exe's main 512; total
# 44544 bytes. No allocator frame keeps any self.
expect_exit 0 pd show -f json "$T/base.csv"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "heap bytes"; fi
import json, sys
d = json.load(open(sys.argv[1]))
p, f = d["profile"], {(x["function"], x["module"]): x for x in d["functions"]}
assert p["unit"] == "bytes" and p["total"] == 44544, p
assert p["format"] == "wpa" and p["event"] == "Impacting Size", p
assert f[("BuildIndex", "app.exe")]["self"] == 40960, f[("BuildIndex", "app.exe")]
assert f[("LoadConfig", "app.exe")]["self"] == 3072
assert f[("main", "other.exe")]["self"] == 512
assert f[("main", "app.exe")]["total"] == 44032
assert ("[Root]", "") not in f, "the [Root] pseudo-frame is no function"
alloc = ("RtlAllocateHeap", "malloc", "_malloc_base", "operator new",
         "RtlpAllocateHeapInternal")
assert not any(x["function"] in alloc for x in d["functions"]), sorted(f)
PY
# Allocations (--metric blocks): BuildIndex 10 + 5, LoadConfig 3, for
# app.exe alone (--process): 18.
expect_exit 0 pd show -f json --metric blocks --process app.exe "$T/base.csv"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "heap allocations"; fi
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: x["self"] for x in d["functions"]}
assert d["profile"]["total"] == 18 and f["BuildIndex"] == 15 and f["LoadConfig"] == 3, (d["profile"], f)
PY

# The diff: +8192 bytes in BuildIndex is +20 %, beyond the 5 % threshold,
# judged exactly (no sampling test): regressed, exit 1; LoadConfig same.
expect_exit 1 pd -f json "$T/base.csv" "$T/cand.csv"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "memory diff"; fi
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: x for x in d["functions"]}
b = f["BuildIndex"]["self"]
assert b["status"] == "regressed" and b["baseline"] == 40960 and b["candidate"] == 49152, b
assert abs(b["delta_pct"] - 20.0) < 1e-9 and b["p"] is None, b
assert f["LoadConfig"]["self"]["status"] == "same"
assert d["verdict"] == "regressed"
PY
# A 2 % change is below the threshold: same, exit 0.
heap "$T/small.csv" 41779
expect_exit 0 pd "$T/base.csv" "$T/small.csv"

# VirtualAlloc Commit LifeTimes: the stack is "Commit Stack", sizes in KB
# in the header; KernelBase!VirtualAlloc and the kernel are the allocator.
# Render 256 KB + 64 KB = 320 KB = 327680 bytes, Decode 1024 KB.
cat >"$T/va.csv" <<EOF
Process,Commit Stack,Count,Impacting Size (KB),Size (KB),Commit Time (s)
"app.exe (4321)",$ROOT/app.exe!Render/KernelBase.dll!VirtualAlloc/ntdll.dll!NtAllocateVirtualMemory/ntoskrnl.exe!KiSystemServiceCopyEnd,2,256,256,1.5
"app.exe (4321)",$ROOT/app.exe!Render/KernelBase.dll!VirtualAllocEx,1,64,64,1.6
"app.exe (4321)",$ROOT/app.exe!Decode/KernelBase.dll!VirtualAlloc,1,1024,1024,2.0
EOF
expect_exit 0 pd show -f json "$T/va.csv"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "VirtualAlloc commits"; fi
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: x["self"] for x in d["functions"]}
assert f["Render"] == 327680 and f["Decode"] == 1048576, f
assert d["profile"]["total"] == 1376256, d["profile"]
assert not [n for n in f if "VirtualAlloc" in n or "KiSystem" in n or "NtAllocate" in n], f
PY

# The tree view (Line #): inclusive sizes per node; an allocator node's
# own bytes go to its caller. BuildIndex 40960, LoadConfig 3072.
cat >"$T/tree.csv" <<'EOF'
Line #,Process,Stack,Count,Impacting Size,Size
1,,[Root],13,44032,44032
2,app.exe (4321),|- app.exe!main,13,44032,44032
3,app.exe (4321),|    |- app.exe!BuildIndex,10,40960,40960
4,app.exe (4321),|    |    |- app.exe!operator new,10,40960,40960
5,app.exe (4321),|    |    |    |- ntdll.dll!RtlAllocateHeap,10,40960,40960
6,app.exe (4321),|    |- app.exe!LoadConfig,3,3072,3072
7,app.exe (4321),|    |    |- ucrtbase.dll!malloc,3,3072,3072
EOF
expect_exit 0 pd show -f json "$T/tree.csv"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "memory tree view"; fi
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: x["self"] for x in d["functions"]}
assert f["BuildIndex"] == 40960 and f["LoadConfig"] == 3072, f
assert not f.get("RtlAllocateHeap") and not f.get("malloc") and not f.get("operator new"), f
assert d["profile"]["total"] == 44032
PY

# An allocator list of one's own (--alloc-frames, module!function).
expect_exit 0 pd show -f json --alloc-frames '^ntdll\.dll!.*$' "$T/base.csv"
expect_grep '"function":[[:space:]]*"malloc"' "$T/out"

# A negative size (memory allocated before the selection and freed in it,
# type AOFI) is an error naming the row, never a silent change of totals.
sed 's/AIFI,\(.*\),5,0,1280/AOFI,\1,5,-1280,1280/' "$T/base.csv" >"$T/neg.csv"
expect_exit 2 pd show "$T/neg.csv"
expect_lines 1 "$T/err"
expect_grep 'neg.csv: row 4, column "Impacting Size": a negative size' "$T/err"
# --metric of another kind is refused.
expect_exit 2 pd show --metric max-bytes "$T/base.csv"
expect_grep "WPA memory table has --metric bytes or blocks" "$T/err"
# A folded conversion of exact bytes is refused; speedscope keeps them.
expect_exit 2 pd convert -f folded "$T/base.csv"
expect_exit 0 pd convert "$T/base.csv" -o "$T/base.speedscope.json"
expect_exit 1 pd "$T/base.speedscope.json" "$T/cand.csv"
# A File I/O table has a Stack and a Size, but its time is the waiting:
# the same bytes read in four times the reads and twice the time is a
# regression of LoadIndex (20 000 -> 40 000 µs, by hand), not "same"
# bytes; the note names the column read.
F=$PD_ROOT/fixtures/wpa
expect_exit 0 pd show -f json "$F/file-io.csv"
expect_grep "a table of waits or I/O: its weight is the time in \"Duration (µs)\", not the bytes" "$T/err"
expect_grep '"total":.40000000,' "$T/out"
expect_exit 1 pd "$F/file-io.csv" "$F/file-io-cand.csv"
# The reads of index.bin went from 100 to 400: the table's operations
# by file regress (a count of every read, +300 %), and LoadIndex's own
# waiting doubled (kernelbase.dll!ReadFile, where the stacks end, is a
# system library's frame, its time the caller's): one table a side
# cannot tell +100 % of time from a run's variation, and says so.
expect_grep "^regressed     Count                     +300.0 %          100          400 app.exe (1234) / Read / C:.data.index.bin$" "$T/out"
expect_grep "1 function moved past it, undecided" "$T/out"
expect_no_grep "ReadFile" "$T/out"
expect_exit 1 pd -f json "$F/file-io.csv" "$F/file-io-cand.csv"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "file I/O weights: $(head -c 300 "$T/out")"; fi
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: x for x in d["functions"]}
t = f["LoadIndex"]["total"]
assert (t["baseline"], t["candidate"]) == (20e6, 40e6), t
t = f["LoadIndex"]["self"]
assert (t["baseline"], t["candidate"]) == (20e6, 40e6), t
assert t["status"] == "inconclusive" and t["delta_pct"] == 100, t
assert f["LoadConfig"]["total"]["baseline"] == f["LoadConfig"]["total"]["candidate"] == 20e6
PY

# CPU Usage (Precise): "New Thread Stack" is the stack of the thread
# switched in, where it waited, and "Waits (µs)" its waiting; read as
# stacks, not as a table keyed by the stack's text. By hand: ReadMft
# 1200 waits, 400 000 µs (its stack ends in kernelbase, ntdll and the
# kernel, whose time is its own); TakeLock 300 waits, 50 000 µs.
expect_exit 0 pd show "$F/cpu-precise.csv"
expect_grep "total 450.000 ms" "$T/out"
expect_grep "400.000  88.89%      400.000  88.89%  ReadMft \[app.exe\]" "$T/out"
expect_grep " 50.000  11.11%       50.000  11.11%  TakeLock \[app.exe\]" "$T/out"
expect_no_grep "KiSwapContext\|NtReadFile\|RtlEnterCriticalSection" "$T/out"
expect_grep 'its weight is the time in "Waits (µs)"' "$T/err"
# --thread reads the New Thread Id column
expect_exit 0 pd show --thread 102 "$F/cpu-precise.csv"
expect_grep "total 50.000 ms" "$T/out"
# ReadMft's waits as many, each twice as long: a regression of its own
# time (counted as waits, their time is what the test weighs)
sed 's/,1200,400000,/,1200,800000,/' "$F/cpu-precise.csv" >"$T/precise-cand.csv"
expect_exit 1 pd "$F/cpu-precise.csv" "$T/precise-cand.csv"
expect_grep "^regressed: ReadMft \[app.exe\] +100.0 % (self)" "$T/out"
finish
