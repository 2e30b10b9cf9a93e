#!/bin/sh
# What an input may make is bounded (docs/reliability.md, "Limits").
#
# A compressed input may expand only so far (core/limits.h,
# PD_LIMIT_INFLATE): its decompressed bytes at most a ratio times the
# file's bytes read by then, plus a floor. A gzip or bzip2 bomb (members
# of a few bytes that each claim megabytes) is refused in one line naming
# the file, the byte and the variables that raise the cap, exit 2, within
# seconds; real profiles pass under the default and under a cap that
# still holds them.
. "$(dirname "$0")/lib.sh"

# 1 MiB of folded lines, compressed, as many members as asked
python3 - "$T" <<'PY' || not_ok "making the bombs"
import bz2, gzip, sys
t = sys.argv[1]
block = b"main;parse;hash 1\n" * ((1 << 20) // 18)
g, b = gzip.compress(block, 9), bz2.compress(block, 9)
open(t + "/bomb.folded.gz", "wb").write(g * 64)
open(t + "/bomb.folded.bz2", "wb").write(b * 64)
open(t + "/sizes", "w").write("%d %d %d\n" % (len(block), len(g), len(b)))
PY
read -r block gsize bsize <"$T/sizes"
# each member decompresses more than 10 times its size
[ $((block / gsize)) -gt 10 ] && [ $((block / bsize)) -gt 10 ] ||
	not_ok "the members compress only $((block / gsize))x / $((block / bsize))x"

# at the default cap (256 times, plus 1 GiB) the 64 MiB are read
expect_exit 0 pd show "$T/bomb.folded.gz"
expect_grep "$((64 * block / 18)) samples" "$T/out"
expect_exit 0 pd show "$T/bomb.folded.bz2"
expect_grep "$((64 * block / 18)) samples" "$T/out"

# a cap of 10 times plus 4 MiB stops each within its first members
for z in gz bz2; do
	kind=gzip
	[ $z = bz2 ] && kind=bzip2
	# shellcheck disable=SC2086
	expect_exit 2 with_timeout 60 env PERFDIFF_LIMIT_INFLATE=10 \
		PERFDIFF_LIMIT_INFLATE_FLOOR=4194304 \
		$PD_WRAP "$PERFDIFF" show "$T/bomb.folded.$z"
	expect_lines 1 "$T/err"
	expect_grep "bomb.folded.$z: byte [0-9]* of the file: its $kind data expands to over [0-9]* bytes" "$T/err"
	expect_grep "PERFDIFF_LIMIT_INFLATE=RATIO or PERFDIFF_LIMIT_INFLATE_FLOOR=BYTES raises it" "$T/err"
	expect_lines 0 "$T/out"
done

# the demo's profiles (47 times smaller gzipped) under a cap of 60 times
gz=$PD_ROOT/fixtures/demo/base.perf.txt.gz
expect_exit 0 env PERFDIFF_LIMIT_INFLATE=60 PERFDIFF_LIMIT_INFLATE_FLOOR=1 \
	$PD_WRAP "$PERFDIFF" show "$gz"
expect_exit 2 env PERFDIFF_LIMIT_INFLATE=20 PERFDIFF_LIMIT_INFLATE_FLOOR=1 \
	$PD_WRAP "$PERFDIFF" show "$gz"
expect_grep "base.perf.txt.gz: byte [0-9]* of the file: its gzip data expands" "$T/err"
# a bad value is a usage error naming the variable
expect_exit 2 env PERFDIFF_LIMIT_INFLATE=lots $PD_WRAP "$PERFDIFF" show "$gz"
expect_grep "PERFDIFF_LIMIT_INFLATE=lots: not a whole number from 1" "$T/err"

# Distinct call paths (PD_LIMIT_NODES): these stacks make the root and
# four paths (main, main;parse, main;parse;hash, main;load), counted by
# hand; a cap of 5 holds them, 4 does not, and an ingest over it changes
# nothing in the history.
printf 'main;parse;hash 3\nmain;parse 2\nmain;load 1\n' >"$T/n.folded"
expect_exit 0 env PERFDIFF_LIMIT_NODES=5 $PD_WRAP "$PERFDIFF" show "$T/n.folded"
expect_grep '6 samples' "$T/out"
expect_exit 2 env PERFDIFF_LIMIT_NODES=4 $PD_WRAP "$PERFDIFF" show "$T/n.folded"
expect_lines 1 "$T/err"
expect_grep "n.folded: over perfdiff's limit of 4 distinct call paths" "$T/err"
expect_grep "PERFDIFF_LIMIT_NODES=N raises it" "$T/err"
mkdir -p "$T/b/profiles"
printf '{"git_sha": "%040d", "scenario": "s", "cache": "warm"}\n' 1 \
	>"$T/b/build_meta.json"
cp "$T/n.folded" "$T/b/profiles/run.1.folded"
expect_exit 2 env PERFDIFF_LIMIT_NODES=4 $PD_WRAP "$PERFDIFF" ingest \
	--db "$T/h.db" "$T/b"
expect_grep "over perfdiff's limit of 4 distinct call paths" "$T/err"
if [ -f "$T/h.db" ]; then
	expect_exit 0 pd runs --db "$T/h.db" -f tsv
	expect_lines 0 "$T/out"
fi
expect_exit 0 pd ingest --db "$T/h.db" "$T/b"
expect_exit 0 pd runs --db "$T/h.db" -f tsv
expect_lines 1 "$T/out"
finish
