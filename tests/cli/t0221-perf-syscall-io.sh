#!/bin/sh
# Read and write calls recorded as perf's system-call tracepoints
# (docs/formats.md, "Read and write calls"): each event is one call of
# its stack, counted exactly; --metric bytes weighs each by its bytes
# (a sys_enter_ event's count field, a sys_exit_ event's return value,
# an error moving none). Switching 1 MiB reads to 4 KiB reads is 256
# times the calls and the same bytes. The expected numbers are counted
# by hand from the files written here, and from the program recorded:
# reading N bytes in chunks of C is N / C calls and one more at the end.
. "$(dirname "$0")/lib.sh"

# stacks of a read of `count` bytes at `at` seconds from load_file
enter() { # COUNT AT
	printf 'app 7/7 [000] %s: syscalls:sys_enter_read: fd: 0x00000003, buf: 0x7f0000001000, count: 0x%08x\n' "$2" "$1"
	printf '\t    7f00000f82ad read+0xd (/usr/lib/libc.so.6)\n'
	printf '\t    55000000010b5 load_file+0x35 (/opt/app)\n'
	printf '\t    55000000010f0 main+0x20 (/opt/app)\n\n'
}
# the same as its exit, returning RET (hex)
leave() { # RET AT
	printf 'app 7/7 [000] %s:  syscalls:sys_exit_read: 0x%s\n' "$2" "$1"
	printf '\t    7f00000f82ad read+0xd (/usr/lib/libc.so.6)\n'
	printf '\t    55000000010b5 load_file+0x35 (/opt/app)\n'
	printf '\t    55000000010f0 main+0x20 (/opt/app)\n\n'
}
# A: 2 MiB as two reads of 1 MiB; B: as 512 reads of 4 KiB
{ enter 1048576 1.000001; enter 1048576 1.000002; } >"$T/a.txt"
i=0
while [ $i -lt 512 ]; do
	enter 4096 "2.$(printf '%06d' $i)"
	i=$((i + 1))
done >"$T/b.txt"

# the calls: 2 and 512, each one event
expect_exit 0 pd show -f json "$T/a.txt"
python3 - "$T/out" <<'PY' && ok || not_ok "show: $(head -c 300 "$T/out")"
import json, sys
j = json.load(open(sys.argv[1]))
f = {x["function"]: x for x in j["functions"]}
assert f["load_file"]["total"] == 2 and f["read"]["self"] == 2, f
PY
expect_exit 0 pd show "$T/a.txt"
expect_grep "syscalls:sys_enter_read: 2 calls, 2.0 MiB (2097152 bytes) asked for (--metric bytes weighs the bytes)" "$T/err"
# 256 times the calls, exact: a regression of load_file's calls
expect_exit 1 pd "$T/a.txt" "$T/b.txt"
expect_grep "^regressed: read \[libc.so.6\] +25500 % (self)" "$T/out"
expect_grep "256.00 (exact).* load_file" "$T/out"
expect_grep "candidate: .*b.txt: syscalls:sys_enter_read: 512 calls, 2.0 MiB (2097152 bytes) asked for" "$T/err"
# the same bytes: nothing changed
expect_exit 0 pd --metric bytes "$T/a.txt" "$T/b.txt"
expect_grep "^same: no function changed beyond the threshold; total +0.0 %" "$T/out"
expect_grep "weights = bytes the calls asked for; sample counts = calls" "$T/out"

# exits: the bytes moved; an error (-EAGAIN) moves none
{ leave 100000 1.1; leave fffffffffffffff5 1.2; leave 400 1.3; } >"$T/x.txt"
expect_exit 0 pd show --metric bytes -f json "$T/x.txt"
python3 - "$T/out" <<'PY' && ok || not_ok "exit bytes: $(head -c 300 "$T/out")"
import json, sys
j = json.load(open(sys.argv[1]))
f = {x["function"]: x for x in j["functions"]}
assert f["load_file"]["total"] == 0x100000 + 0x400, f["load_file"]
assert f["load_file"]["total_samples"] == 3, f["load_file"]
PY
# text printed without the tracepoint's fields says no bytes: --metric
# bytes is refused in one line, the calls are still counted
sed 's/: fd: .*$/:/' "$T/a.txt" >"$T/bare.txt"
expect_exit 2 pd show --metric bytes "$T/bare.txt"
expect_lines 1 "$T/err"
expect_grep "bare.txt: --metric bytes: no call of the event says its bytes" "$T/err"
expect_lines 0 "$T/out"
expect_exit 0 pd show "$T/bare.txt"
expect_grep "2 calls, 0.0 MiB (0 bytes) asked for by those that say" "$T/err"
# --metric other than bytes is refused for such an event, in one line
expect_exit 2 pd show --metric blocks "$T/a.txt"
expect_lines 1 "$T/err"
expect_grep "a.txt: --metric blocks: a read or write call's event gives its calls (the default) or --metric bytes" "$T/err"

# A program recorded here, when perf can record the tracepoint: 4 MiB
# read in 1 MiB chunks (4 + 1 calls) and in 4 KiB chunks (1024 + 1).
# perf's frame-pointer unwinding loses the caller of libc's read (which
# keeps no frame pointer): the calls are read's and main's.
rec() {
	perf record -q -e syscalls:sys_exit_read -g -o "$T/$1.data" \
		"$T/rd" "$T/data.bin" "$2" >/dev/null 2>&1 &&
		perf script -i "$T/$1.data" >"$T/$1.txt" 2>/dev/null
}
cat >"$T/rd.c" <<'C'
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
static char buf[1 << 20];
__attribute__((noinline)) static long read_all(const char *p, size_t chunk)
{
	long n = 0, r;
	int fd = open(p, O_RDONLY);

	while ((r = read(fd, buf, chunk)) > 0)
		n += r;
	close(fd);
	return n;
}
int main(int argc, char **argv)
{
	return argc < 3 || read_all(argv[1], (size_t)atol(argv[2])) != 4 << 20;
}
C
if ! command -v perf >/dev/null || ! command -v cc >/dev/null; then
	echo "note: perf or cc missing: the recorded part skipped"
elif ! cc -O2 -g -fno-omit-frame-pointer -o "$T/rd" "$T/rd.c"; then
	not_ok "compiling the reader"
elif head -c 4194304 /dev/zero >"$T/data.bin" && ! rec big 1048576; then
	echo "note: perf cannot record syscalls:sys_exit_read here: the recorded part skipped"
elif rec small 4096; then
	expect_exit 0 pd show -f json "$T/big.txt"
	python3 - "$T/out" <<'PY' && ok || not_ok "recorded: $(head -c 300 "$T/out")"
import json, sys
j = json.load(open(sys.argv[1]))
f = {x["function"]: x for x in j["functions"]}
assert f["main"]["total"] == 5 and f["read"]["self"] >= 5, f["main"]
PY
	expect_exit 1 pd "$T/big.txt" "$T/small.txt"
	expect_grep "205.00 (exact).* main \[rd\]" "$T/out"
	# the bytes: 4 MiB, and what the loader read, on each side
	expect_exit 0 pd --metric bytes "$T/big.txt" "$T/small.txt"
	expect_grep "^same:" "$T/out"
	expect_grep "baseline: .*big.txt: syscalls:sys_exit_read: [0-9]* calls, 4.0 MiB" "$T/err"
else
	not_ok "recording the 4 KiB reads"
fi
finish
