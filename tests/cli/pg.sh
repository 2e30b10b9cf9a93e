# A PostgreSQL server of the test's own, for the tests of the PostgreSQL
# history (docs/history.md, "Backends"). Sourced after lib.sh:
#   pg_start   initdb + pg_ctl in $T/pg, listening on a socket in $T/pg
#              only (no TCP port to collide with); sets PG_URL to a
#              database "perfdiff" there, and PG_BIN; pg_stop runs at exit
#   pg_psql    psql on that database, as the server's superuser
# A test calls pg_start and exits 77 (skipped, with a note) where the
# server's programs are not installed.
pg_find_bin() {
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
		[ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && { echo "$d"; return 0; }
	done
	command -v initdb >/dev/null 2>&1 && dirname "$(command -v initdb)"
}

# Runs a server program as the owner of the data folder: the current user,
# or "postgres" when the tests run as root (initdb refuses root).
pg_as() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u "$PG_OWNER" -- "$@"
	else
		"$@"
	fi
}

pg_stop() {
	[ -n "${PG_DATA:-}" ] && [ -f "$PG_DATA/postmaster.pid" ] &&
		pg_as "$PG_BIN/pg_ctl" -D "$PG_DATA" -m immediate -w stop >/dev/null 2>&1
	return 0
}

pg_start() {
	PG_BIN=$(pg_find_bin)
	if [ -z "$PG_BIN" ]; then
		echo "PostgreSQL server programs not installed (Debian: postgresql): skipped"
		exit 77
	fi
	PG_OWNER=$(id -un)
	if [ "$(id -u)" = 0 ]; then
		PG_OWNER=postgres
		getent passwd postgres >/dev/null || {
			echo "running as root without a postgres user: skipped"
			exit 77
		}
	fi
	PG_DIR="$T/pg"
	PG_DATA="$PG_DIR/data"
	mkdir -p "$PG_DIR"
	chmod 755 "$T"
	[ "$(id -u)" = 0 ] && chown "$PG_OWNER" "$PG_DIR"
	pg_as "$PG_BIN/initdb" -D "$PG_DATA" -U postgres --auth=trust \
		--encoding=UTF8 --locale=C.UTF-8 >"$PG_DIR/initdb.log" 2>&1 || {
		cat "$PG_DIR/initdb.log"
		not_ok "initdb"
		exit 1
	}
	trap 'pg_stop; rm -rf "$T"' EXIT
	pg_as "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$PG_DIR/server.log" -w \
		-o "-c listen_addresses= -k $PG_DIR -p 5432 -c fsync=off" start >/dev/null || {
		cat "$PG_DIR/server.log"
		not_ok "pg_ctl start"
		exit 1
	}
	PG_URL="postgresql://postgres@/perfdiff?host=$PG_DIR&port=5432"
	pg_as "$PG_BIN/createdb" -h "$PG_DIR" -p 5432 -U postgres perfdiff ||
		{ not_ok "createdb"; exit 1; }
}

pg_psql() {
	"$PG_BIN/psql" -X -q -t -A -v ON_ERROR_STOP=1 -h "$PG_DIR" -p 5432 \
		-U postgres perfdiff "$@"
}
