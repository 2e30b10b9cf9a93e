#!/bin/sh
# --db names a regular file (or one not made yet): a FIFO or a folder is
# refused before SQLite opens it, in one line naming the path, exit 2.
# Before, a FIFO blocked `runs` and `trend` for ever and a folder gave an
# empty message. A missing file keeps its own message.
. "$(dirname "$0")/lib.sh"

mkfifo "$T/fifo"
mkdir "$T/dir"
for cmd in "runs" "trend --scenario s"; do
	for db in fifo dir; do
		# shellcheck disable=SC2086
		expect_exit 2 with_timeout 10 "$PERFDIFF" $cmd --db "$T/$db"
		expect_lines 1 "$T/err"
		expect_grep "$T/$db: a .*, not a history database" "$T/err"
	done
done
expect_exit 2 with_timeout 10 "$PERFDIFF" ingest --db "$T/fifo" "$T/dir"
expect_grep "$T/fifo: a FIFO, not a history database" "$T/err"
expect_exit 2 pd runs --db "$T/missing.db"
expect_grep "no such database" "$T/err"
finish
