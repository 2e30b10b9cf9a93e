#!/bin/sh
# A damaged history whose runs row holds NULL in a NOT NULL column (as
# the history fuzz target made one) is listed by `perfdiff runs`, the
# NULL read as nothing, not followed as a string.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 not installed: skipped"; exit 77; }
cd "$T" || exit 1
mkdir -p b/profiles
printf 'main;parse 5\nmain 1\n' >b/profiles/run.1.folded
printf '{"git_sha": "1234567abc", "scenario": "s", "cache": "warm"}\n' >b/build_meta.json
expect_exit 0 pd ingest --db h.db b
# the NOT NULL dropped from the schema, a NULL written, the NOT NULL put
# back: the file SQLite reads is the damaged one
notnull="unit          TEXT NOT NULL"
sqlite3 h.db "PRAGMA journal_mode = DELETE;" >/dev/null
sqlite3 h.db "PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = replace(sql, '$notnull', 'unit          TEXT') WHERE name = 'runs';"
sqlite3 h.db "UPDATE runs SET unit = NULL;"
sqlite3 h.db "PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = replace(sql, 'unit          TEXT,', '$notnull,') WHERE name = 'runs';"
expect_grep 'unit          TEXT NOT NULL' "$(sqlite3 h.db "SELECT sql FROM sqlite_master WHERE name = 'runs'" >schema.txt && echo schema.txt)"
expect_exit 2 pd runs --db h.db
expect_grep "^perfdiff: h.db: PRAGMA integrity_check: NULL value in runs.unit; the file is damaged; recover what it holds with: sqlite3 'h.db' .recover" "$T/err"
[ "$(wc -l <"$T/err")" -eq 1 ] && ok || not_ok "more than one line: $(cat "$T/err")"
finish
