#!/bin/sh
# ETW traces written by tests/tools/etl_make.py around a program built
# for Windows (PE + PDB, clang-cl and lld-link): samples named from the
# PDB the trace's DbgID_RSDS event identifies (--symbols), user stacks by
# key defined after the samples, kernel and user halves joined, a JIT
# method from the CLR's event, compressed buffers, the default process,
# and the notes of an unmerged trace. Function addresses come from the
# linker's map, ids from llvm-readobj: none of it from perfdiff.
. "$(dirname "$0")/lib.sh"

tools="clang-cl lld-link llvm-readobj llvm-symbolizer"
llvm_bin $tools
W=$T/win
mkdir -p "$W"
"$L/clang-cl" --target=x86_64-pc-windows-msvc /c /O1 /Z7 /GS- \
	"/Fo$W/app.obj" -- "$PD_ROOT/fixtures/symbols/app.c" >/dev/null &&
	"$L/lld-link" /nologo /entry:main /subsystem:console /nodefaultlib \
		/debug /timestamp:1593835520 "/pdb:$W/app.pdb" "/map:$W/app.map" \
		"/out:$W/app.exe" "$W/app.obj" || exit 1
"$L/llvm-readobj" --file-headers --coff-debug-directory "$W/app.exe" >"$W/ro.txt"
python3 "$PD_ROOT/tests/tools/pe_ids.py" "$W" || exit 1

# spec VARIANT: the trace's spec from the build's ids and map
spec() {
	python3 - "$W" "$1" <<'PY'
import json, re, sys
d, variant = sys.argv[1], sys.argv[2]
ids = json.load(open(d + "/ids.json"))
ts, size, age, rva = ids["timestamp"], ids["size"], ids["age"], ids["frames"]
base, kern, jit = 0x7FF6A0000000, 0xFFFFF80000000000, 0x7FF900001000
a = lambda f, k=4: base + rva[f] + k
top = [a("process_batch", 8), a("main", 8)]
image = {"pid": 100, "base": base, "size": size, "path": "C:\\build\\app.exe",
         "timestamp": ts}
if variant != "unmerged":
    image["pdb"] = {"guid": ids["pdb_guid"], "age": age,
                    "name": "app.pdb"}
spec = {
    "compress": variant == "compressed",
    "processes": [{"pid": 100, "name": "app.exe"}, {"pid": 200, "name": "other.exe"}],
    "threads": [{"pid": 100, "tid": 101}, {"pid": 100, "tid": 102},
                {"pid": 200, "tid": 201}],
    "images": [image, {"pid": 0, "base": kern, "size": 0x100000,
                       "path": "\\SystemRoot\\system32\\ntoskrnl.exe"}],
    "methods": [{"pid": 100, "start": jit, "size": 0x100,
                 "namespace": "Test.Jit", "name": "Run"},
                {"pid": 100, "start": base + size - 0x100, "size": 0x100,
                 "namespace": "Test.Ngen", "name": "Work"}],
    "samples": [
        {"tid": 101, "ip": a("parse_record"), "count": 400, "user_key": True,
         "user": [a("parse_record")] + top},
        {"tid": 102, "ip": a("hash_key"), "count": 200,
         "user": [a("hash_key")] + top},
        {"tid": 101, "ip": kern + 0x100, "count": 100, "user_key": True,
         "kernel": [kern + 0x100, kern + 0x50],
         "user": [a("sort_bucket")] + top},
        {"tid": 102, "ip": jit + 0x10, "count": 30,
         "user": [jit + 0x10, a("main", 8)]},
        {"tid": 101, "ip": 0x12345678, "count": 20},
        {"tid": 102, "ip": base + size - 0x80, "count": 10},
        {"tid": 201, "ip": 0x22345678, "count": 50},
    ],
    # VirtualAlloc: commits of 64 KiB under parse_record and 4 KiB under
    # hash_key, a reservation and a free (not commits), other.exe's own
    # commits, one without a stack
    "vallocs": [
        {"tid": 101, "size": 65536, "count": 3,
         "user": [a("parse_record")] + top},
        {"tid": 102, "size": 4096, "count": 2, "flags": 0x1000,
         "kernel": [kern + 0x100], "user": [a("hash_key")] + top},
        {"tid": 101, "size": 1 << 20, "flags": 0x2000,
         "user": [a("sort_bucket")] + top},
        {"tid": 101, "size": 8192, "free": True,
         "user": [a("sort_bucket")] + top},
        {"tid": 201, "size": 12288, "count": 4, "user": [0x22345678]},
        {"tid": 102, "size": 1024, "owner": 100},
        # into app.exe's memory from other.exe: the caller's commit
        {"tid": 201, "size": 2048, "owner": 100, "user": [0x22345678]},
    ],
}
if variant == "novalloc":
    del spec["vallocs"]
json.dump(spec, open("%s/%s.spec" % (d, variant), "w"))
PY
	python3 "$PD_ROOT/tests/tools/etl_make.py" "$W/$1.spec" "$W/$1.etl"
}
spec plain && spec compressed && spec unmerged && spec novalloc || exit 1

# check FILE: the functions' samples are the spec's
check() {
	if python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: x for x in d["functions"]}
s = lambda n, k="self_samples": f[n][k]
assert d["profile"]["samples"] == 760, d["profile"]
assert s("parse_record") == 400 and s("hash_key") == 200, (f["parse_record"], f["hash_key"])
assert s("sort_bucket") == 0 and s("sort_bucket", "total_samples") == 100
assert s("process_batch", "total_samples") == 700
assert s("main", "total_samples") == 730
assert s("Test.Jit.Run") == 30 and f["Test.Jit.Run"]["module"] in ("", None)
# precompiled code inside an image is the method's, in the image's module
assert s("Test.Ngen.Work") == 10 and f["Test.Ngen.Work"]["module"] == "app.exe"
k = [x for x in d["functions"] if x["module"] == "ntoskrnl.exe"]
assert sum(x["self_samples"] for x in k) == 100, k
assert sum(x["total_samples"] for x in k) >= 100
PY
	then ok; else not_ok "$1: the spec's samples"; fi
}
expect_exit 0 pd show -f json --symbols "$W" "$W/plain.etl"
cp "$T/out" "$T/plain.json"
check "$T/plain.json"
expect_grep "symbols for app.exe: 5 of 5 addresses named" "$T/err"
expect_grep "read process app.exe (100), the one with the most samples (760 of 810)" "$T/err"
expect_exit 0 pd show -f json --symbols "$W" "$W/compressed.etl"
cp "$T/out" "$T/compressed.json"
check "$T/compressed.json"
# another process, by pid; a thread of the first
expect_exit 0 pd show -f json --process 200 "$W/plain.etl"
expect_grep '"samples":.50,' "$T/out"
expect_exit 0 pd show -f json --thread 102 "$W/plain.etl"
expect_grep '"samples":.240,' "$T/out"
# VirtualAlloc commits: bytes by function, exact, of the process with
# the most commits (the reservation and the free are not commits)
expect_exit 0 pd show -f json --symbols "$W" --event virtualalloc "$W/plain.etl"
cp "$T/out" "$T/valloc.json"
if python3 - "$T/valloc.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: x for x in d["functions"]}
assert d["profile"]["samples"] == 6, d["profile"]
assert d["profile"]["unit"] == "bytes", d["profile"]
assert f["parse_record"]["self"] == 3 * 65536, f["parse_record"]
assert f["hash_key"]["total"] == 2 * 4096, f["hash_key"]
assert f["main"]["total"] == 3 * 65536 + 2 * 4096, f["main"]
assert f["[no stack]"]["self"] == 1024, f["[no stack]"]
assert "sort_bucket" not in f, f["sort_bucket"]
PY
then ok; else not_ok "VirtualAlloc commits by function"; fi
expect_grep "processes by VirtualAlloc commits: app.exe (100) 6, other.exe (200) 5" "$T/err"
expect_exit 0 pd show -f json --event virtualalloc --process other "$W/plain.etl"
expect_grep '"samples":.5,' "$T/out"
# two traces' commits compared: exact counts, judged by the threshold
expect_exit 0 pd -f json --symbols "$W" --event virtualalloc "$W/plain.etl" "$W/compressed.etl"
expect_grep '"method":."exact"' "$T/out"
expect_exit 2 pd show --event cycles "$W/plain.etl"
expect_grep "an ETW trace gives 'cpu'.*'virtualalloc'.*'diskio'.* or 'hardfault'" "$T/err"
# a trace without VirtualAlloc events says how to record them
expect_exit 2 pd show --event virtualalloc "$W/novalloc.etl"
expect_grep "holds no VirtualAlloc commits.*-stackwalk VirtualAlloc" "$T/err"
# without --symbols, and unmerged: what to do
expect_exit 0 pd show "$W/plain.etl"
expect_grep "the trace names the PDB of its images; --symbols DIR" "$T/err"
expect_exit 0 pd show --symbols "$W" "$W/unmerged.etl"
expect_grep "the trace was not merged.*xperf -merge" "$T/err"
expect_no_grep "parse_record" "$T/out"
finish
