#!/bin/sh
# Every input is opened once and read once: a named FIFO and bash's <(...)
# give all their samples (the magic probe read the first 4 KiB through a
# stream of its own, then opened the input again: 617 of the 634 samples
# the demo fixture then held came from <(...), and a FIFO hung).
# Compressed input is checked to its end: a gzip or bzip2 stream cut
# short, with a bad CRC, or followed by other bytes is exit 2 with one
# line naming the file and the byte; gzip members or bzip2 streams one
# after another (cat a.gz b.gz) are one valid input. Sample counts are
# counted here on the text: a sample's header is a line that starts with
# no blank (11879 in the demo baseline).
. "$(dirname "$0")/lib.sh"

gz=$PD_ROOT/fixtures/demo/base.perf.txt.gz
nsamp=$(gzip -dc "$gz" | grep -c '^[^[:space:]]')
[ "$nsamp" -eq 11879 ] || not_ok "the fixture has $nsamp samples, not 11879"

samples() { # the sample count of show's first line
	sed -n '1s/.* \([0-9][0-9]*\) samples.*/\1/p' "$T/out"
}

mkfifo "$T/fifo"
gzip -dc "$gz" >"$T/fifo" &
expect_exit 0 with_timeout 20 "$PERFDIFF" show --from perf-script "$T/fifo"
[ "$(samples)" = "$nsamp" ] || not_ok "FIFO with --from: $(samples) samples, want $nsamp"
wait
cat "$gz" >"$T/fifo" &
expect_exit 0 with_timeout 20 "$PERFDIFF" show "$T/fifo"
[ "$(samples)" = "$nsamp" ] || not_ok "gzip through a FIFO: $(samples) samples, want $nsamp"
wait
if command -v bash >/dev/null 2>&1; then
	expect_exit 0 bash -c '"$1" show --from perf-script <(gzip -dc "$2")' \
		sh "$PERFDIFF" "$gz"
	[ "$(samples)" = "$nsamp" ] || not_ok "<(...): $(samples) samples, want $nsamp"
else
	echo "note: no bash here, <(...) not tried"
fi
gzip -dc "$gz" | pd show - >"$T/out" 2>"$T/err"
[ "$(samples)" = "$nsamp" ] || not_ok "stdin: $(samples) samples, want $nsamp"

# a raw perf.data is read by offsets: from a FIFO it is copied first, and
# gives what the file itself gives
pdata=$PD_ROOT/fixtures/perfdata/mixed.data
expect_exit 0 pd show "$pdata"
head -n 1 "$T/out" | sed 's/^[^:]*: //' >"$T/want-perfdata"
cat "$pdata" >"$T/fifo" &
expect_exit 0 with_timeout 20 "$PERFDIFF" show "$T/fifo"
wait
head -n 1 "$T/out" | sed 's/^[^:]*: //' | cmp -s - "$T/want-perfdata" ||
	not_ok "perf.data through a FIFO: $(head -n 1 "$T/out")"

# gzip cut short at 10 % .. 99 % of its bytes
size=$(wc -c <"$gz" | tr -d ' ')
for pct in 10 30 50 70 90 99; do
	head -c $((size * pct / 100)) "$gz" >"$T/cut.gz"
	expect_exit 2 pd show "$T/cut.gz"
	expect_lines 1 "$T/err"
	expect_grep "cut.gz: byte [0-9]*: truncated gzip stream" "$T/err"
done
# a CRC that does not match (the trailer's first byte changed)
python3 - "$gz" "$T/crc.gz" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[-8] ^= 0x01
open(sys.argv[2], "wb").write(b)
PY
expect_exit 2 pd show "$T/crc.gz"
expect_lines 1 "$T/err"
expect_grep "crc.gz: byte [0-9]*: corrupt gzip data: incorrect data check" "$T/err"
# other bytes after the stream
{ cat "$gz"; printf 'garbage\n'; } >"$T/tail.gz"
expect_exit 2 pd show "$T/tail.gz"
expect_lines 1 "$T/err"
expect_grep "tail.gz: byte $size: data after the end of the gzip stream" "$T/err"
# zeros padding the file to a block end it, as gzip -t has it; a byte
# after them is garbage, named at its offset
{ cat "$gz"; head -c 4096 /dev/zero; } >"$T/pad.gz"
gzip -t "$T/pad.gz" || not_ok "gzip -t refuses the padded file"
expect_exit 0 pd show "$T/pad.gz"
[ "$(samples)" = "$nsamp" ] || not_ok "padded: $(samples) samples, want $nsamp"
{ cat "$T/pad.gz"; printf 'x'; } >"$T/padx.gz"
expect_exit 2 pd show "$T/padx.gz"
expect_grep "padx.gz: byte $((size + 4096)): data after the end of the gzip stream" "$T/err"
# two members: one input of both
cat "$gz" "$gz" >"$T/two.gz"
expect_exit 0 pd show "$T/two.gz"
[ "$(samples)" = "$((2 * nsamp))" ] || not_ok "two members: $(samples) samples, want $((2 * nsamp))"

# bzip2: cut short, followed by other bytes, two streams
if command -v bzip2 >/dev/null 2>&1; then
	gzip -dc "$gz" | bzip2 -c >"$T/p.bz2"
	bsize=$(wc -c <"$T/p.bz2" | tr -d ' ')
	head -c $((bsize / 2)) "$T/p.bz2" >"$T/cut.bz2"
	expect_exit 2 pd show "$T/cut.bz2"
	expect_lines 1 "$T/err"
	expect_grep "cut.bz2: byte [0-9]*: truncated bzip2 stream" "$T/err"
	{ cat "$T/p.bz2"; printf 'garbage\n'; } >"$T/tail.bz2"
	expect_exit 2 pd show "$T/tail.bz2"
	expect_grep "tail.bz2: byte $bsize: data after the end of the bzip2 stream" "$T/err"
	cat "$T/p.bz2" "$T/p.bz2" >"$T/two.bz2"
	expect_exit 0 pd show "$T/two.bz2"
	[ "$(samples)" = "$((2 * nsamp))" ] || not_ok "two bzip2 streams: $(samples) samples, want $((2 * nsamp))"
else
	echo "note: no bzip2 here, bzip2 streams not tried"
fi
finish
