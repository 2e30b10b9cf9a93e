#!/bin/sh
# A stored stack tree whose node count is damaged (history.md, "Tables",
# run_stacks) is an error naming the file and the run, exit 2, one line:
# not an allocation of the count's bytes. A negative count (as the
# history fuzz target made one) read as a size once asked for 2^64 bytes
# less a few thousand and so stopped with "out of memory"; a count far
# beyond what the blob could inflate to is refused before anything is
# allocated for it. A count one too many or too few for the blob is
# refused by zlib's length, as before.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 not installed: skipped"; exit 77; }
cd "$T" || exit 1
for c in 1 2; do
	mkdir -p "b$c/profiles"
	printf '{"git_sha": "%s", "scenario": "s", "cache": "warm"}\n' \
		"${c}${c}${c}${c}${c}${c}${c}aaaa" >"b$c/build_meta.json"
	printf 'main;parse %d\nmain;hash 30\nmain 5\n' $((40 + c)) >"b$c/profiles/run.1.folded"
done
export PERFDIFF_DB="$T/clean.db"
expect_exit 0 pd ingest b1 b2
sqlite3 clean.db 'PRAGMA journal_mode = DELETE' >/dev/null
# run 2 is commit 2222222aaaa's: ingested second, one run a bundle
for nodes in -100 -1 1000000000000 4294967295; do
	cp clean.db bad.db
	sqlite3 bad.db "UPDATE run_stacks SET nodes = $nodes WHERE run_id = 2"
	PERFDIFF_DB="$T/bad.db" expect_exit 2 pd compare 1111111 2222222 --scenario s
	expect_grep "^perfdiff: $T/bad.db: corrupt stack tree of run 2\$" "$T/err"
	expect_lines 1 "$T/err"
done
# the count one off: zlib gives more or fewer bytes than it says
for d in 1 -1; do
	cp clean.db bad.db
	sqlite3 bad.db "UPDATE run_stacks SET nodes = nodes + ($d) WHERE run_id = 2"
	PERFDIFF_DB="$T/bad.db" expect_exit 2 pd compare 1111111 2222222 --scenario s
	expect_grep "corrupt stack tree of run 2\$" "$T/err"
done
# the clean history compares
expect_exit 0 pd compare 1111111 2222222 --scenario s
finish
