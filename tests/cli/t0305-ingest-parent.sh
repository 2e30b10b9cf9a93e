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
finish
