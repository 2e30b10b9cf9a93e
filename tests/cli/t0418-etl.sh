#!/bin/sh
# Windows ETW traces read directly: the .NET trace's samples against the
# counts PerfView's own parser wrote in its baseline, the processes that
# show lists, --process by name and by pid, gzip for free, and damaged
# or cut traces refused with the byte.
. "$(dirname "$0")/lib.sh"
E=$PD_CORPUS/etl/perfview-net.4.5.2.x64.etl.zip
B=$PD_CORPUS/etl/perfview-net.4.5.2.x64.baseline.txt
if have_extra etl/perfview-net.4.5.2.x64.etl.zip; then
	expect_exit 0 pd show "$E"
	expect_grep "processes by samples: Test.x64.exe (3676) 5129, PerfView.exe (3988) 356" "$T/err"
	expect_grep "read process Test.x64.exe (3676), the one with the most samples (5129 of 6320)" "$T/err"
	expect_grep "System.DateTime.GetDatePart" "$T/out"
	# what the trace holds beside the samples, in PerfView's counts
	# (the baseline's COUNT lines; test_etl compares every kind)
	expect_grep "the trace also holds 1208 disk reads, 21 disk writes, 153 hard faults, 10382 CLR allocation ticks, which perfdiff does not compare yet (--event diskio, fileio or hardfault compares them): the profile is its CPU samples" "$T/err"
	# Every process's samples add up to PerfView's count of
	# Windows Kernel/PerfInfo/Sample (idle-loop samples left out, as
	# PerfView leaves them out), and reading all of them gives as many.
	pids=$(sed -n 's/.*processes by samples: \(.*\) (--process.*/\1/p' "$T/err" |
		tr ',' '\n' | sed -n 's/.*(\([0-9]*\)) [0-9]*$/\1/p' | paste -sd, -)
	sum=$(sed -n 's/.*processes by samples: \(.*\) (--process.*/\1/p' "$T/err" |
		tr ',' '\n' | sed -n 's/.*) \([0-9]*\)$/\1/p' | paste -sd+ - | bc)
	pv=$(sed -n 's/^COUNT Windows Kernel\/PerfInfo\/Sample:\([0-9]*\).*/\1/p' "$B")
	if [ "$sum" = "$pv" ] && [ "$pv" = 6320 ]; then ok; else
		not_ok "samples by process add up to $sum, PerfView counts $pv"; fi
	expect_exit 0 pd show -f json --process "$pids" "$E"
	expect_grep "\"samples\":.$pv," "$T/out"
	# by name (with or without .exe) or pid: the same process
	expect_exit 0 pd show -f json --process Test.x64 "$E"
	expect_grep '"samples":.5129,' "$T/out"
	expect_exit 0 pd show -f json --process 3988,dwm.exe "$E"
	expect_grep '"samples":.488,' "$T/out"
	expect_exit 2 pd show --process nosuch "$E"
	expect_grep "no process is named or numbered 'nosuch'" "$T/err"
	# JIT-compiled methods are named from the CLR's events; images
	# are modules
	expect_exit 0 pd show -f json "$E"
	if python3 - "$T/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: x for x in d["functions"]}
assert f["Test.Program.Main"]["total_samples"] > 4800, f["Test.Program.Main"]
assert any(x["module"] == "ntdll.dll" for x in d["functions"])
PY
	then ok; else not_ok "JIT methods and image modules"; fi
	# a trace against itself: no change
	expect_exit 0 pd -f json "$E" "$E"
	if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verdict"] != "regressed", d["verdict"]
assert all(f["self"]["delta"] == 0 for f in d["functions"])' "$T/out"
	then ok; else not_ok "a trace against itself"; fi
	# its sample times read into time blocks: a history stores the run's
	# dispersions over them (docs/history.md, "Tables", run_bursts),
	# which a trace without times would not have
	mkdir -p "$T/etlb/profiles"
	cp "$E" "$T/etlb/profiles/"
	printf '{"git_sha": "%040d", "scenario": "s", "cache": "warm"}\n' 1 >"$T/etlb/build_meta.json"
	if PERFDIFF_DB="$T/etl.db" pd ingest "$T/etlb" >"$T/ingest.out" 2>&1 &&
		[ "$(sqlite3 "$T/etl.db" 'SELECT count(*) FROM runs JOIN run_bursts ON run_id = runs.id WHERE nrows > 0')" = 1 ]
	then ok; else not_ok "the trace's sample times in blocks: $(head -c 300 "$T/ingest.out")"; fi
	# the .etl itself, and gzipped
	python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); open(sys.argv[2], "wb").write(z.read("net.4.5.2.x64.etl"))' "$E" "$T/net.etl"
	expect_exit 0 pd show -f json "$T/net.etl"
	expect_grep '"samples":.5129,' "$T/out"
	gzip -c "$T/net.etl" >"$T/net.etl.gz"
	expect_exit 0 pd show -f json "$T/net.etl.gz"
	expect_grep '"samples":.5129,' "$T/out"
	# a zip whose trace is not its first member, with sizes in the local
	# headers and (written to a pipe) in data descriptors after the data
	zipped() { # STORED: also a stored member before the trace
		python3 -c '
import sys, zipfile
z = zipfile.ZipFile(sys.stdout.buffer, "w", zipfile.ZIP_DEFLATED)
z.writestr("LogFile.txt", "log line\n" * 5000)
if sys.argv[2] == "1":
    z.writestr("notes.txt", "stored", compress_type=zipfile.ZIP_STORED)
z.write(sys.argv[1], "net.etl")
z.close()' "$T/net.etl" "$1"
	}
	zipped 1 >"$T/two.etl.zip"
	zipped 0 | cat >"$T/pipe.etl.zip"
	for z in two pipe; do
		expect_exit 0 pd show -f json "$T/$z.etl.zip"
		expect_grep '"samples":.5129,' "$T/out"
	done
	# a stored member whose size comes only after it cannot be passed over
	zipped 1 | cat >"$T/stored.etl.zip"
	expect_exit 2 pd show "$T/stored.etl.zip"
	expect_grep "stored.etl.zip: byte [0-9]*: a stored zip member of unknown size before the .etl" "$T/err"
	# cut at a buffer's end (212 of 360 buffers, as a copy made while
	# the trace is written ends): the header's count of buffers tells
	python3 -c '
import struct, sys
d = open(sys.argv[1], "rb").read()
at = 0
for _ in range(212):
    at += struct.unpack_from("<I", d, at)[0]
open(sys.argv[2], "wb").write(d[:at])' "$T/net.etl" "$T/cut212.etl"
	expect_exit 2 pd "$T/net.etl" "$T/cut212.etl"
	expect_grep "cut212.etl: byte 2447413 of the .etl: the trace ends after 212 of the 360 buffers its header says were written" "$T/err"
	if [ "$(wc -l <"$T/err")" -eq 1 ]; then ok; else not_ok "one line"; fi
	# cut inside a buffer, and a damaged buffer header
	head -c 100000 "$T/net.etl" >"$T/cut.etl"
	expect_exit 2 pd show "$T/cut.etl"
	expect_grep "cut.etl: byte 100000 of the .etl: the trace ends inside a buffer" "$T/err"
	damage() { # OFFSET HEX: a copy of the .etl with bytes changed, in bad.etl
		python3 -c '
import sys
d = bytearray(open(sys.argv[1], "rb").read())
at, b = int(sys.argv[3]), bytes.fromhex(sys.argv[4])
d[at:at + len(b)] = b
open(sys.argv[2], "wb").write(d)' "$T/net.etl" "$T/bad.etl" "$1" "$2"
	}
	damage 512 10000000
	expect_exit 2 pd show "$T/bad.etl"
	expect_grep "bad.etl: byte 512 of the .etl: not a buffer header" "$T/err"
	damage 512 ffffff7f
	expect_exit 2 pd show "$T/bad.etl"
	expect_grep "bad.etl: byte 512 of the .etl: a buffer: over perfdiff's limit of 67108864 bytes in one buffer" "$T/err"
	# an event larger than its buffer, in the first (plain) one
	damage 76 ffff
	expect_exit 2 pd show "$T/bad.etl"
	expect_grep "bad.etl: byte 72 of the .etl: not an event header" "$T/err"
	if [ "$(wc -l <"$T/err")" -eq 1 ]; then ok; else not_ok "one line"; fi
fi
# A written trace whose header says more buffers were written than it
# holds is refused; one that says as many is read.
cat >"$T/w.spec" <<'EOF2'
{"processes": [{"pid": 7, "name": "w.exe"}], "threads": [{"pid": 7, "tid": 8}],
 "samples": [{"tid": 8, "ip": 4096, "count": 3}], "buffers_written": 9}
EOF2
python3 "$PD_ROOT/tests/tools/etl_make.py" "$T/w.spec" "$T/w.etl"
expect_exit 2 pd show "$T/w.etl"
expect_grep "w.etl: byte [0-9]* of the .etl: the trace ends after 2 of the 9 buffers its header says were written" "$T/err"
sed 's/"buffers_written": 9/"buffers_written": 2/' "$T/w.spec" >"$T/w2.spec"
python3 "$PD_ROOT/tests/tools/etl_make.py" "$T/w2.spec" "$T/w2.etl"
expect_exit 0 pd show -f json "$T/w2.etl"
expect_grep '"samples":.3,' "$T/out"
# Four buffers of 40 bytes of LZ77 that claim 8 MiB of samples each: past
# 32 times the bytes read (plus 16 MiB) the trace is refused before the
# buffer is expanded, quickly, in little memory, and nothing is left in
# TMPDIR; raised from the environment, the samples are all counted
# (4 x 8388608 / 32 bytes a sample, plus the trace's own 3).
sed 's/"buffers_written": 9/"repeat": {"buffers": 4, "bytes": 8388608}/' \
	"$T/w.spec" >"$T/bomb.spec"
python3 "$PD_ROOT/tests/tools/etl_make.py" "$T/bomb.spec" "$T/bomb.etl"
mkdir "$T/tmp"
TMPDIR=$T/tmp expect_exit 2 pd show "$T/bomb.etl"
expect_grep "bomb.etl: byte [0-9]* of the .etl: a compressed buffer that expands to 8388680 bytes: over perfdiff's limit of [0-9]* bytes of events by then (32 times the [0-9]* bytes read, plus 16777216: PD_LIMIT_ETL_INFLATE in src/core/limits.h; PERFDIFF_LIMIT_ETL_INFLATE=RATIO raises it)" "$T/err"
expect_lines 1 "$T/err"
if [ -z "$(ls -A "$T/tmp")" ]; then ok; else not_ok "left in TMPDIR: $(ls "$T/tmp")"; fi
PERFDIFF_LIMIT_ETL_INFLATE=1000 TMPDIR=$T/tmp expect_exit 0 pd show -f json "$T/bomb.etl"
expect_grep '"samples":.1048579,' "$T/out"
PERFDIFF_LIMIT_ETL_INFLATE=2x expect_exit 2 pd show "$T/bomb.etl"
expect_grep "PERFDIFF_LIMIT_ETL_INFLATE=2x: not a whole number from 1" "$T/err"
if [ -z "$(ls -A "$T/tmp")" ]; then ok; else not_ok "left in TMPDIR: $(ls "$T/tmp")"; fi
# A compressed buffer whose header says it holds 32 bytes more than its
# LZ77 expands to is refused where it starts (it was read short).
sed 's/"buffers_written": 9/"repeat": {"buffers": 1, "bytes": 4096}/' \
	"$T/w.spec" >"$T/short.spec"
python3 "$PD_ROOT/tests/tools/etl_make.py" "$T/short.spec" "$T/short.etl"
at=$(python3 - "$T/short.etl" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
at = 0
while at < len(d):
    size, saved = struct.unpack_from("<II", d, at)
    if struct.unpack_from("<H", d, at + 0x34)[0] & 0x40:
        struct.pack_into("<I", d, at + 4, saved + 32)
        break
    at += size
open(sys.argv[1], "wb").write(d)
print(at)
PY
)
expect_exit 2 pd show "$T/short.etl"
expect_grep "short.etl: byte $at of the .etl: a compressed buffer that expands to 4096 bytes where its header says 4128" "$T/err"
# Not a trace: a zip without an .etl is named as such.
printf 'PK\003\004' >"$T/x.zip"
head -c 60 /dev/zero >>"$T/x.zip"
expect_exit 2 pd show "$T/x.zip"
expect_grep "zip archive" "$T/err"
finish
