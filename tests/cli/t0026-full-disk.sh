#!/bin/sh
# A full disk: every output format, to a file (-o, written under a
# temporary name beside it) and to standard output, fails with one line
# naming what was written and the system's reason, exit 2, and leaves no
# file. The disk is a 64 KiB tmpfs filled up (mounting needs root: those
# checks are skipped without it); standard output is /dev/full. Also:
# show's warnings go to stderr, as diff's do.
. "$(dirname "$0")/lib.sh"
D=$PD_ROOT/fixtures/demo
full="No space left on device"

# show's warnings: on stderr, and repeated in the report (not a terminal)
expect_exit 0 pd show "$PD_ROOT/fixtures/folded/small.folded"
expect_grep "^perfdiff: warning: skipped 1 malformed line" "$T/err"
expect_grep "^warning: skipped 1 malformed line" "$T/out"
expect_exit 0 pd show "$PD_ROOT/fixtures/folded/small.folded" -o "$T/show.txt"
expect_grep "^perfdiff: warning: skipped 1 malformed line" "$T/err"

# standard output on a full device
if [ -w /dev/full ]; then
	for f in text md json html folded; do
		pd "$D/base.perf.txt.gz" "$D/cand.perf.txt.gz" -f "$f" >/dev/full 2>"$T/err"
		[ $? -eq 2 ] && ok || not_ok "-f $f to /dev/full: not exit 2"
		grep -v 'warning:' "$T/err" >"$T/err1"
		expect_lines 1 "$T/err1"
		expect_grep "^perfdiff: error: writing standard output: $full\$" "$T/err1"
	done
fi

M=$T/full
mkdir "$M"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=64k tmpfs "$M" 2>/dev/null; then
	trap 'umount "$M" 2>/dev/null; rm -rf "$T"' EXIT
	dd if=/dev/zero of="$M/fill" bs=1k count=64 2>/dev/null
	for f in text md json html folded xlsx; do
		expect_exit 2 pd "$D/base.perf.txt.gz" "$D/cand.perf.txt.gz" -f "$f" -o "$M/out.$f"
		grep -v 'warning:' "$T/err" >"$T/err1"
		expect_lines 1 "$T/err1"
		expect_grep "^perfdiff: error: $M/out.$f: write failed: $full\$" "$T/err1"
	done
	# trend's outputs, on a history of three commits
	export PERFDIFF_DB="$T/h.db"
	for c in 1 2 3; do
		mkdir -p "$T/b$c/profiles"
		printf '{"git_sha": "0%daaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "scenario": "s", "cache": "warm", "commit_date": "2026-04-0%dT00:00:00Z"}\n' \
			"$c" "$c" >"$T/b$c/build_meta.json"
		printf 'main;a %d\nmain;b 500\n' $((1000 + c)) >"$T/b$c/profiles/run.1.folded"
	done
	expect_exit 0 pd ingest "$T"/b1 "$T"/b2 "$T"/b3
	for f in text md json html xlsx; do
		expect_exit 2 pd trend --scenario s -f "$f" -o "$M/trend.$f"
		expect_lines 1 "$T/err"
		expect_grep "^perfdiff: error: $M/trend.$f: write failed: $full\$" "$T/err"
	done
	# site: its line names the page, and says the reason once
	expect_exit 2 pd site "$M/site"
	expect_lines 1 "$T/err"
	expect_grep "^perfdiff: error: $M/site/.*\.html: .* failed: write failed: $full\$" "$T/err"
	expect_no_grep "failed: perfdiff" "$T/err"
	rm -rf "$M/site"
	# nothing left behind: the filler alone
	[ "$(ls -A "$M")" = fill ] && ok || not_ok "left in $M: $(ls -A "$M")"
	umount "$M"
else
	echo "note: cannot mount a tmpfs (not root, or no permission): full-disk files not checked"
fi
finish
