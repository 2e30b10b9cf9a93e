#!/bin/sh
# The history on PostgreSQL (docs/history.md, "Backends"), on a server this
# test starts itself: the history tests of SQLite run again on it; one
# history built on both backends gives byte-identical answers; a reader's
# role reads and cannot write; a killed ingest leaves nothing; eight
# concurrent ingests (and a fresh database migrated by four at once) lose
# and duplicate nothing; a password never reaches a message.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg.sh"
pg_start
export PATH="$PG_BIN:$PATH"
PG_BASE="postgresql://postgres@/?host=$PG_DIR&port=$PG_PORT"

# 1. The SQLite history tests, unchanged, on the server.
for t in t0610-trend t0620-trend-counters t0345-check-stored \
	t0310-ingest-kill t0320-ingest-concurrent t0341-cache-unspecified \
	t0342-reingest t0343-unknown-keys t0344-git-revisions t0616-alerts; do
	if PD_TEST_PG="$PG_BASE" PD_TEST_KILLS=15 PD_TEST_ROUNDS=6 \
		sh "$PD_ROOT/tests/cli/$t.sh" >"$T/sub.log" 2>&1; then ok
	else not_ok "$t on PostgreSQL: $(grep FAIL "$T/sub.log" | head -5)"; fi
done
# (they did run there: their histories are databases on the server)
[ "$(pg_psql -c "SELECT count(*) FROM pg_database WHERE datname ~ '^pd_.*_(h|u8|k|c|n[0-9]+)$'")" = 13 ] &&
	ok || not_ok "the history tests made no databases on the server"
[ "$(pg_psql -c "SELECT count(*) FROM pg_database WHERE datname ~ '^pd_.*_(u|r|legacy_same|legacy_edited|keys|g)$'")" = 6 ] &&
	ok || not_ok "the ingest tests made no databases on the server"

# 2. One history, both backends, the same answers byte for byte.
tail=cccccccccccccccccccccccccccccccccccccc
mk() { # mk DIR COMMIT: three folded runs, parse +25 % from commit 5 on
	mkdir -p "$1/profiles"
	printf '{"git_sha": "%02d%s", "scenario": "eq", "cache": "warm", "commit_date": "2026-06-%02dT00:00:00Z"}\n' \
		"$2" "$tail" "$2" >"$1/build_meta.json"
	for r in 1 2 3; do
		p=800; [ "$2" -ge 5 ] && p=1000
		j=$(( (r - 2) * (1 + $2 % 4) ))
		{
			echo "main;parse;lex $((p + j))"
			echo "main;read $((1500 - j))"
			echo "main;tab	name $((40 + r))"
			echo "main;=SUM(A1) 7"
		} >"$1/profiles/run.$r.folded"
	done
}
c=1
while [ $c -le 8 ]; do mk "$T/e$c" $c; c=$((c + 1)); done
history_db eq_lite
lite=$PERFDIFF_DB
expect_exit 0 pd ingest --db "$lite" "$T"/e[0-9]
PD_TEST_PG="$PG_BASE" history_db eq_pg
pgdb=$PERFDIFF_DB
expect_exit 0 pd ingest --db "$pgdb" "$T"/e[0-9]
both() { # both NAME ARGS...: the same command on each history
	name=$1; shift
	pd "$@" --db "$lite" >"$T/$name.lite" 2>"$T/$name.lite.err"; rl=$?
	pd "$@" --db "$pgdb" >"$T/$name.pg" 2>"$T/$name.pg.err"; rp=$?
	if [ $rl -eq $rp ] && cmp -s "$T/$name.lite" "$T/$name.pg"; then ok; else
		not_ok "$name: exit $rl/$rp; $(diff "$T/$name.lite" "$T/$name.pg" | head -5)"
	fi
}
# the same ids, given in the same order of first use (on a server in bulk)
PERFDIFF_DB=$lite history_sql 'SELECT id, name, module FROM functions ORDER BY id' >"$T/ids.lite"
PERFDIFF_DB=$pgdb history_sql 'SELECT id, name, module FROM functions ORDER BY id' >"$T/ids.pg"
cmp -s "$T/ids.lite" "$T/ids.pg" && [ -s "$T/ids.pg" ] && ok || not_ok "function ids differ: $(diff "$T/ids.lite" "$T/ids.pg" | head -4)"
both runs runs
both compare compare 04$tail 05$tail --scenario eq
both compare_json compare 04$tail 05$tail --scenario eq -f json
both trend trend --scenario eq -f json
both trend_fn trend --scenario eq --function parse --last 5
both culprit culprit --scenario eq
both check check db:01:eq db:08:eq -f json
both peek peek parse -b db:03:eq -c db:06:eq
grep -q "\"function\":[[:space:]]*\"lex\"" "$T/compare_json.pg" && ok || not_ok "compare JSON names lex: $(head -c 300 "$T/compare_json.pg.err")"

# 2a. The partitioned layout of history.md ("Toward 5 billion rows"):
#     run_functions turned into range partitions by run id with a
#     covering key; every command answers as before, and ingest writes
#     through it.
pgname=$(printf '%s' "$pgdb" | sed 's|.*/\([a-z0-9_]*\)?.*|\1|')
pg_psql -d "$pgname" <<'SQL' || not_ok "partitioning the history"
SET client_min_messages = warning;
BEGIN;
ALTER TABLE run_functions RENAME TO run_functions_flat;
CREATE TABLE run_functions (LIKE run_functions_flat) PARTITION BY RANGE (run_id);
ALTER TABLE run_functions ADD PRIMARY KEY (run_id, func_id)
	INCLUDE (self_n, total_n, self_w, total_w);
CREATE TABLE run_functions_1 PARTITION OF run_functions FOR VALUES FROM (1) TO (13);
CREATE TABLE run_functions_2 PARTITION OF run_functions FOR VALUES FROM (13) TO (1000000);
INSERT INTO run_functions SELECT * FROM run_functions_flat;
DROP TABLE run_functions_flat CASCADE;
CREATE VIEW run_functions_v AS
SELECT rf.run_id, rf.func_id, f.name, f.module,
       coalesce(rf.self_w, rf.self_n * r.interval)   AS self,
       coalesce(rf.total_w, rf.total_n * r.interval) AS total,
       coalesce(rf.self_n, rf.self_w / r.interval)   AS self_samples,
       coalesce(rf.total_n, rf.total_w / r.interval) AS total_samples
FROM run_functions rf JOIN runs r ON r.id = rf.run_id JOIN functions f ON f.id = rf.func_id;
COMMIT;
SQL
[ "$(pg_psql -d "$pgname" -c "SELECT relkind FROM pg_class WHERE relname = 'run_functions'")" = p ] &&
	ok || not_ok "run_functions is not partitioned"
both runs runs
both compare compare 04$tail 05$tail --scenario eq
both trend trend --scenario eq -f json
both trend_fn trend --scenario eq --function parse --last 5
both check check db:01:eq db:08:eq -f json

# 2b. db copy: SQLite -> PostgreSQL -> SQLite. The file that comes back
#     is the original row for row (sqlite3 .dump, ids, integer and real
#     storage, blobs), and the server's copy answers as the original.
PD_TEST_PG="$PG_BASE" history_db copy_pg
cpg=$PERFDIFF_DB
expect_exit 0 pd db copy "$lite" "$cpg"
expect_grep ": 8 bundles, 24 runs, 6 functions, 144 function rows$" "$T/out"
expect_exit 0 pd db copy "$cpg" "$T/back.db"
expect_grep "8 bundles, 24 runs" "$T/out"
sqlite3 "$lite" .dump >"$T/lite.dump"
sqlite3 "$T/back.db" .dump >"$T/back.dump"
cmp -s "$T/lite.dump" "$T/back.dump" && ok || not_ok "round trip: $(diff "$T/lite.dump" "$T/back.dump" | head -5)"
pd trend --scenario eq -f json --db "$cpg" >"$T/trend.copy" 2>/dev/null
cmp -s "$T/trend.lite" "$T/trend.copy" && ok || not_ok "trend from the copy differs"
pd compare 04$tail 05$tail --scenario eq --db "$cpg" >"$T/compare.copy" 2>/dev/null
cmp -s "$T/compare.lite" "$T/compare.copy" && ok || not_ok "compare from the copy differs"
# the copy takes new ingests after the copied ids
mk "$T/e10" 10
expect_exit 0 pd ingest --db "$cpg" "$T/e10"
PERFDIFF_DB=$cpg
[ "$(history_sql 'SELECT count(*) || chr(32) || max(id) FROM runs')" = "27 27" ] && ok ||
	not_ok "ingest after copy: $(history_sql 'SELECT count(*), max(id) FROM runs')"
# into a history that is not empty: refused, nothing written
expect_exit 2 pd db copy "$lite" "$cpg"
expect_grep "holds a history already" "$T/err"
expect_lines 1 "$T/err"
[ "$(history_sql 'SELECT count(*) FROM runs')" = 27 ] && ok || not_ok "refused copy wrote"

# 2c. Runs without function rows (perf stat): their packed row is an empty
#     blob, not NULL, on the server and in a copy back to a file, and
#     the counters compare as on SQLite.
PD_TEST_PG="$PG_BASE" history_db stat_pg
spg=$PERFDIFF_DB
for x in base:aaaa1111 cand:bbbb2222; do
	expect_exit 0 pd ingest --db "$spg" "$PD_ROOT/fixtures/perfstat/${x%%:*}.stat.txt" --sha "${x#*:}" --scenario st --cache warm
	expect_exit 0 pd ingest --db "$T/stat.db" "$PD_ROOT/fixtures/perfstat/${x%%:*}.stat.txt" --sha "${x#*:}" --scenario st --cache warm
done
[ "$(history_sql "SELECT count(*) FROM run_packed WHERE nrows = 0 AND length(rows) = 0")" = 2 ] && ok ||
	not_ok "empty packed rows: $(history_sql 'SELECT run_id, nrows, length(rows) FROM run_packed')"
expect_exit 0 pd db copy "$spg" "$T/stat-back.db"
[ "$(sqlite3 "$T/stat-back.db" "SELECT count(*) FROM run_packed WHERE typeof(rows) = 'blob' AND length(rows) = 0")" = 2 ] && ok ||
	not_ok "empty packed rows copied: $(sqlite3 "$T/stat-back.db" 'SELECT run_id, typeof(rows) FROM run_packed')"
pd compare aaaa1111 bbbb2222 --scenario st --db "$spg" >"$T/stat.pg" 2>&1
pd compare aaaa1111 bbbb2222 --scenario st --db "$T/stat.db" >"$T/stat.lite" 2>&1
grep -q "cycles" "$T/stat.lite" && cmp -s "$T/stat.lite" "$T/stat.pg" && ok ||
	not_ok "perf stat compare differs: $(diff "$T/stat.lite" "$T/stat.pg" | head -4)"
PERFDIFF_DB=$pgdb

# 3. A role that may only read: every reading command works, ingest is
#    refused with one line, and nothing is written.
pg_psql -d "$(basename "$(printf '%s' "$pgdb" | sed 's|?.*||')")" -c \
	"CREATE ROLE reader LOGIN; GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader" 2>&1 ||
	not_ok "read-only role"
ro=$(printf '%s' "$pgdb" | sed 's|//postgres@|//reader@|')
expect_exit 0 pd runs --db "$ro"
expect_exit 1 pd compare 04 05 --scenario eq --db "$ro"
expect_exit 1 pd trend --scenario eq --db "$ro"
mk "$T/e9" 9
expect_exit 2 pd ingest --db "$ro" "$T/e9"
expect_lines 1 "$T/err"
expect_grep "permission denied" "$T/err"
[ "$(history_sql 'SELECT count(*) FROM runs')" = 24 ] && ok || not_ok "the reader wrote"

# 4. A password given in the URL is in no message.
expect_exit 2 pd runs --db "postgresql://postgres:s3cr3t-pw@/nosuchdb?host=$PG_DIR&port=$PG_PORT"
expect_no_grep "s3cr3t" "$T/err"
expect_grep "postgresql://postgres@/nosuchdb" "$T/err"
# ... nor when it holds a raw '?' (libpq reads it as part of the
# password), a raw '/' (libpq then reads no password but a port of its
# first part, and says so) or a percent escape libpq cannot decode (it
# quotes the whole password back).
for pw in 's3cr?t-pw' 's3cr/et-pw' 's3cr%zzet-pw' 's3cr%2Fet%20pw'; do
	expect_exit 2 pd runs --db "postgresql://postgres:$pw@/nosuchdb?host=$PG_DIR&port=$PG_PORT"
	expect_lines 1 "$T/err"
	expect_no_grep "s3cr\|et-pw\|et pw" "$T/err"
	expect_grep "postgresql://postgres@/nosuchdb" "$T/err"
done
# ... nor in pieces: an '@' then a '/' make libpq read the password "Pf"
# and ask the server for a database "Jr5@/nosuchdb", which the server
# names back; a short piece before a '/' is the port libpq cannot read.
for pw in 'Pf@/Jr5' 'Zq/Kx7w'; do
	expect_exit 2 pd runs --db "postgresql://postgres:$pw@/nosuchdb?host=$PG_DIR&port=$PG_PORT"
	expect_lines 1 "$T/err"
	expect_no_grep "Pf\|Jr5\|Zq\|Kx7w" "$T/err"
	expect_grep "postgresql://postgres@/nosuchdb.*as %2F" "$T/err"
done

# 4b. TLS where the URL asks for it: the loopback port refuses plain
#     connections, so reading there proves the session was encrypted.
if [ -n "$PG_TLS_PORT" ]; then
	tls="postgresql://postgres@127.0.0.1:$PG_TLS_PORT/$pgname"
	expect_exit 0 pd runs --db "$tls?sslmode=require"
	expect_grep "demo\|eq " "$T/out"
	expect_exit 2 pd runs --db "$tls?sslmode=disable"
	expect_lines 1 "$T/err"
	expect_grep "cannot connect: .*no encryption" "$T/err"
else
	echo "note: no openssl, TLS not checked"
fi

# 5. kill -9 during an ingest: the bundle is stored whole or not at all.
big=$T/big
mkdir -p "$big/profiles"
printf '{"git_sha": "99%s", "scenario": "kill", "cache": "warm"}\n' "$tail" >"$big/build_meta.json"
awk 'BEGIN { for (r = 1; r <= 6; r++) { f = "'"$big"'/profiles/run." r ".folded";
	for (i = 0; i < 60000; i++) printf "main;mod%d;fn_%d %d\n", i % 50, i, 1 + i % 97 > f; close(f) } }'
killed=0
for delay in 0.3 0.6 1.0; do
	pd ingest --db "$pgdb" "$big" >/dev/null 2>&1 &
	pid=$!
	sleep $delay
	kill -9 $pid 2>/dev/null && killed=$((killed + 1))
	wait $pid 2>/dev/null
	n=$(history_sql "SELECT count(*) FROM runs WHERE scenario = 'kill'")
	b=$(history_sql "SELECT count(*) FROM bundles b WHERE NOT EXISTS (SELECT 1 FROM runs r WHERE r.bundle_hash = b.hash)")
	rows=$(history_sql "SELECT count(*) FROM run_functions rf WHERE NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = rf.run_id)")
	if { [ "$n" = 0 ] || [ "$n" = 6 ]; } && [ "$b" = 0 ] && [ "$rows" = 0 ]; then ok; else
		not_ok "after kill -9 at ${delay}s: $n runs, $b empty bundles, $rows orphan rows"
	fi
	[ "$n" = 6 ] && break
done
[ $killed -ge 1 ] || echo "note: every ingest ended before its kill"
expect_exit 0 pd ingest --db "$pgdb" "$big"
n=$(history_sql "SELECT count(*) FROM run_functions rf JOIN runs r ON r.id = rf.run_id WHERE r.scenario = 'kill'")
[ "$n" = 360306 ] &&
	ok || not_ok "the big bundle has $n rows after the kills"

# A password is not in what ps shows while perfdiff runs either: the
# argument is copied, then overwritten in place. Another session holds
# the writers' advisory lock until the arguments have been read, so the
# ingest waits alive for a look however fast or slow the machine is.
# An empty read is not an exit: /proc/PID/cmdline reads empty for a
# moment while exec builds the new image; only the state says gone.
PD_TEST_PG="$PG_BASE" history_db pw
psql -X -q -d "$PERFDIFF_DB" -c "SELECT pg_advisory_lock(7070657266646966); SELECT pg_sleep(120)" >/dev/null 2>&1 &
lpid=$!
locked=
for i in $(seq 1 500); do
	locked=$(history_sql "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted" 2>/dev/null)
	[ "${locked:-0}" -ge 1 ] && break
	sleep 0.02
done
[ "${locked:-0}" -ge 1 ] || not_ok "the advisory lock was not taken within 10 s"
"$PERFDIFF" ingest --db "$(printf '%s' "$PERFDIFF_DB" | sed 's|//postgres@|//postgres:s3cr3t-pw@|')" \
	"$big" >/dev/null 2>&1 &
tpid=$!
seen=
for i in $(seq 1 1000); do
	seen=$( (tr '\0' ' ' <"/proc/$tpid/cmdline") 2>/dev/null)
	case "$seen" in *postgres:x*) break ;; esac
	state=$( (sed 's/.*) //' "/proc/$tpid/stat" | cut -c1) 2>/dev/null)
	case "$state" in Z | X | "") break ;; esac
	sleep 0.02
done
history_sql "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()" >/dev/null
wait $tpid || not_ok "the ingest with a password in its URL failed"
wait $lpid
case "$seen" in
*s3cr3t*) not_ok "the password is in the process's arguments: $seen" ;;
*postgres:xxxxxxxxx@*) ok ;;
*) not_ok "arguments not read while the ingest ran: '$seen'" ;;
esac

# 6. Eight runners at once, one bundle given twice, on a fresh database
#    that the first four also migrate at once: nothing lost, nothing twice.
PD_TEST_PG="$PG_BASE" history_db conc
c=1
while [ $c -le 8 ]; do mk "$T/k$c" $((c + 10)); c=$((c + 1)); done
c=1
while [ $c -le 8 ]; do
	pd ingest "$T/k$c" >"$T/k$c.out" 2>&1 &
	c=$((c + 1))
done
pd ingest "$T/k3" >"$T/k3b.out" 2>&1 &
wait
[ "$(history_sql 'SELECT count(*) || chr(32) || count(DISTINCT bundle_hash) FROM runs')" = "24 8" ] && ok ||
	not_ok "concurrent ingests: $(history_sql 'SELECT count(*), count(DISTINCT bundle_hash) FROM runs'); $(cat "$T"/k*.out | head -5)"
[ "$(history_sql 'SELECT count(*) FROM functions')" = 6 ] && ok ||
	not_ok "functions stored once: $(history_sql 'SELECT name FROM functions')"
[ "$(history_sql 'SELECT max(version) FROM perfdiff_schema')" = 6 ] && ok || not_ok "schema version"
# every run's rows also packed, one blob a run (docs/history.md, "Tables")
[ "$(history_sql 'SELECT count(*) FROM runs r JOIN run_packed p ON p.run_id = r.id WHERE p.nrows = (SELECT count(*) FROM run_functions f WHERE f.run_id = r.id)')" = 24 ] && ok ||
	not_ok "packed rows: $(history_sql 'SELECT count(*) FROM run_packed')"
grep -l "already stored" "$T"/k3.out "$T"/k3b.out >/dev/null && ok || not_ok "the second k3 was skipped"

# 6b. A run's time-block dispersions (run_bursts) travel with db copy:
#     SQLite -> PostgreSQL -> SQLite gives back the same blobs.
mkdir -p "$T/tb/profiles"
printf '{"git_sha": "88%s", "scenario": "tb", "cache": "warm"}\n' "$tail" >"$T/tb/build_meta.json"
python3 - >"$T/tb/profiles/run.1.perf.txt" <<'PY'
for i in range(2400):
    fn = "burst" if i < 600 and i % 3 == 0 else "work"
    print("app 100 [000] %.6f: 1000000 cpu-clock:" % (1 + i * 0.001))
    print("\t%16x %s+0x10 (/usr/bin/app)\n\t%16x main+0x10 (/usr/bin/app)\n" % (0x1010, fn, 0x1000))
PY
conc_db=$PERFDIFF_DB
history_db tb_lite
tblite=$PERFDIFF_DB
expect_exit 0 pd ingest "$T/tb"
PD_TEST_PG="$PG_BASE" history_db tb_pg
expect_exit 0 pd db copy "$tblite" "$PERFDIFF_DB"
[ "$(history_sql 'SELECT count(*) FROM run_bursts')" = 1 ] && ok || not_ok "dispersions copied to the server"
expect_exit 0 pd db copy "$PERFDIFF_DB" "$T/tb-back.db"
[ "$(sqlite3 "$tblite" 'SELECT nrows, hex(rows) FROM run_bursts')" = "$(sqlite3 "$T/tb-back.db" 'SELECT nrows, hex(rows) FROM run_bursts')" ] &&
	[ "$(sqlite3 "$tblite" 'SELECT nrows FROM run_bursts')" -ge 2 ] && ok ||
	not_ok "dispersions round trip: $(sqlite3 "$T/tb-back.db" 'SELECT nrows, length(rows) FROM run_bursts')"
export PERFDIFF_DB=$conc_db

# 7. Rows the server refuses while they stream in (COPY): one line naming
#    the step and the server's reason, exit 2, and the bundle not stored.
cname=$(printf '%s' "$PERFDIFF_DB" | sed 's|.*/\([a-z0-9_]*\)?.*|\1|')
pg_psql -d "$cname" -c "ALTER TABLE run_functions ADD CONSTRAINT small CHECK (self_n < 5000)" ||
	not_ok "adding a check"
mkdir -p "$T/huge/profiles"
printf '{"git_sha": "77%s", "scenario": "eq", "cache": "warm"}\n' "$tail" >"$T/huge/build_meta.json"
printf 'main;hot 9000\nmain;cold 10\n' >"$T/huge/profiles/run.1.folded"
expect_exit 2 pd ingest "$T/huge"
expect_lines 1 "$T/err"
expect_grep "adding rows: ERROR: new row .* violates check constraint" "$T/err"
[ "$(history_sql "SELECT count(*) FROM runs WHERE git_sha LIKE '77%'")" = 0 ] &&
	[ "$(history_sql "SELECT count(*) FROM functions WHERE name = 'hot'")" = 0 ] && ok ||
	not_ok "a refused bundle left rows behind"
finish
