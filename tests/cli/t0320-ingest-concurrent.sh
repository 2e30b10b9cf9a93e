#!/bin/sh
# Four ingests at once into one database lose nothing, also when they
# create it. t0700 runs it on PostgreSQL (PD_TEST_PG, fewer rounds).
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 not installed: skipped"; exit 77; }
python3 - "$T" <<'PY'
import os, sys
t = sys.argv[1]
for b in range(8):
    os.makedirs("%s/c%d/profiles" % (t, b))
    with open("%s/c%d/build_meta.json" % (t, b), "w") as f:
        f.write('{"git_sha": "%07x", "scenario": "c", "cache": "cold"}' % (b + 100))
    for r in range(3):
        with open("%s/c%d/profiles/r%d.folded" % (t, b, r), "w") as f:
            for i in range(3000):
                f.write("main;fn%d %d\n" % (i, 1 + (i + r + b) % 9))
PY
history_db c
db=$PERFDIFF_DB
pids=
for p in 0 1 2 3; do
	"$PERFDIFF" ingest --db "$db" "$T/c$p" "$T/c$((p + 4))" >"$T/o$p" 2>"$T/e$p" &
	pids="$pids $!"
done
p=0
for pid in $pids; do
	# each ingest's own exit status, and nothing on its stderr
	if wait "$pid" && [ ! -s "$T/e$p" ]; then ok; else
		not_ok "ingest $p failed: $(cat "$T/e$p")"
	fi
	p=$((p + 1))
done
[ "$(history_sql 'select count(*) from runs')" = 24 ] && ok || not_ok "runs: $(history_sql 'select count(*) from runs')"
[ "$(history_sql 'select count(*) from bundles')" = 8 ] && ok || not_ok "bundles"
[ "$(history_sql 'select count(*) from functions')" = 3001 ] && ok || not_ok "functions: $(history_sql 'select count(*) from functions')"
case $db in
postgres*) ;;
*) [ "$(sqlite3 "$db" 'PRAGMA integrity_check')" = ok ] && ok || not_ok integrity ;;
esac
# Four processes creating one new database at once: switching it to WAL
# is refused at once (no busy wait) to all but one, which must be retried.
# Rare on each try, so tried on twenty fresh databases.
for round in $(seq 1 "${PD_TEST_ROUNDS:-20}"); do
	history_db "n$round"
	pids=
	for p in 0 1 2 3; do
		"$PERFDIFF" ingest --db "$PERFDIFF_DB" "$T/c$p" >/dev/null 2>"$T/n$p" &
		pids="$pids $!"
	done
	p=0
	for pid in $pids; do
		if ! wait "$pid" || [ -s "$T/n$p" ]; then
			not_ok "new database, round $round, ingest $p: $(cat "$T/n$p")"
		fi
		p=$((p + 1))
	done
done
ok
finish
