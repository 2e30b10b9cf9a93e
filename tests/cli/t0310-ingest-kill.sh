#!/bin/sh
# Ingest killed with SIGKILL at random moments, 50 times: the database
# always passes integrity_check (a SQLite file) and holds whole bundles or
# none. t0700 runs it on PostgreSQL (PD_TEST_PG, fewer kills).
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 not installed: skipped"; exit 77; }
python3 - "$T" <<'PY'
import os, sys
t = sys.argv[1]
for b in range(3):
    os.makedirs("%s/b%d/profiles" % (t, b))
    with open("%s/b%d/build_meta.json" % (t, b), "w") as f:
        f.write('{"git_sha": "%07x", "scenario": "k", "cache": "warm"}' % (b + 1))
    for r in range(4):
        with open("%s/b%d/profiles/r%d.folded" % (t, b, r), "w") as f:
            for i in range(6000):
                f.write("main;mod%d::fn%d;leaf%d %d\n" % (i % 50, i, i % 7, 1 + (i * 7 + r) % 13))
PY
history_db k
db=$PERFDIFF_DB
i=0
while [ $i -lt "${PD_TEST_KILLS:-50}" ]; do
	"$PERFDIFF" ingest --db "$db" "$T/b0" "$T/b1" "$T/b2" >/dev/null 2>&1 &
	pid=$!
	# a random moment within the ingest (0-400 ms)
	sleep "0.$(awk -v s="$i" 'BEGIN { srand(s * 7919 + 1); printf "%03d", int(rand() * 400) }')"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	case $db in
	postgres*) ;;
	*) [ -e "$db" ] || { i=$((i + 1)); continue; }
		ic=$(sqlite3 "$db" 'PRAGMA integrity_check' 2>&1)
		[ "$ic" = ok ] && ok || not_ok "integrity_check after kill $i: $ic" ;;
	esac
	if history_sql 'select 1 from runs limit 1' >/dev/null 2>&1; then
		partial=$(history_sql "select count(*) from (select bundle_hash, count(*) n from runs group by bundle_hash having count(*) != 4) x
			union all select count(*) from runs r where not exists (select 1 from run_stacks s where s.run_id = r.id)
			union all select count(*) from bundles b where not exists (select 1 from runs r where r.bundle_hash = b.hash)" 2>&1 | tr '\n' ' ')
		[ "$partial" = "0 0 0 " ] && ok || not_ok "partial data after kill $i: $partial"
	fi
	i=$((i + 1))
done
# Finally, uninterrupted: everything is there exactly once.
expect_exit 0 pd ingest --db "$db" "$T/b0" "$T/b1" "$T/b2"
[ "$(history_sql 'select count(*) from runs')" = 12 ] && ok || not_ok "12 runs at the end"
[ "$(history_sql 'select count(*) from run_functions')" = $((12 * 6008)) ] && ok || \
	not_ok "run_functions: $(history_sql 'select count(*) from run_functions')"
finish
