#!/bin/sh
# The folder that holds the bundles, given for one: the error names what it
# is and what to pass, and a history the failed ingest made is not left
# behind (nothing half-written); a history that was there stays as it was.
. "$(dirname "$0")/lib.sh"
for b in b1 b2; do
	mkdir -p "$T/bundles/$b/profiles"
	cp "$PD_ROOT/fixtures/folded/small.folded" "$T/bundles/$b/profiles/run.folded"
done
expect_exit 2 pd ingest --db "$T/h.db" "$T/bundles"
expect_grep "bundles: not a bundle but a folder of 2 bundles ($T/bundles/b[12], ...): name the bundles themselves (perfdiff ingest $T/bundles/\*)" "$T/err"
if [ ! -e "$T/h.db" ] && [ ! -e "$T/h.db-wal" ] && [ ! -e "$T/h.db-journal" ]; then ok; else
	not_ok "a failed ingest left $(ls "$T" | tr '\n' ' ')"
fi
# a folder of neither
mkdir -p "$T/empty"
expect_exit 2 pd ingest --db "$T/h.db" "$T/empty"
expect_grep "empty: not a bundle: no profiles/ folder" "$T/err"
if [ ! -e "$T/h.db" ]; then ok; else not_ok "a failed ingest left h.db"; fi
# an existing history is kept when a later ingest fails
expect_exit 0 pd ingest --db "$T/h.db" --sha 1111111 --scenario s "$T/bundles/b1"
cp "$T/h.db" "$T/before.db"
expect_exit 2 pd ingest --db "$T/h.db" "$T/bundles"
if cmp -s "$T/h.db" "$T/before.db"; then ok; else not_ok "the history changed"; fi
# Another program's SQLite file is not migrated into a history: ingest
# refuses it and leaves it as it was, and the read commands say what it is
sqlite3 "$T/other.db" "CREATE TABLE notes (x); INSERT INTO notes VALUES (1);"
cp "$T/other.db" "$T/other0.db"
expect_exit 2 pd ingest --db "$T/other.db" --sha 1111111 --scenario s "$T/bundles/b1"
expect_grep "other.db: not a perfdiff history: an SQLite file of another program (1 table); name a file of perfdiff's own, or a new one, with --db" "$T/err"
if cmp -s "$T/other.db" "$T/other0.db"; then ok; else not_ok "ingest changed another program's file"; fi
expect_exit 2 pd runs --db "$T/other.db"
expect_grep "other.db: not a perfdiff history: an SQLite file of another program (1 table)" "$T/err"
expect_no_grep "migrates" "$T/err"
finish
