# A PostgreSQL server of the test's own, for the tests of the PostgreSQL
# history (docs/history.md, "Backends"). Sourced after lib.sh:
#   pg_start   initdb + pg_ctl in $T/pg, listening on a socket in $T/pg
#              (and, when openssl is there, on a free loopback port that
#              takes TLS only: PG_TLS_PORT); sets PG_URL to a database
#              "perfdiff" on the socket, PG_PORT and PG_BIN; pg_stop runs
#              at exit
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
	# TLS on a loopback port too, when openssl can make a certificate:
	# plain TCP is refused there, so a connection that works is encrypted.
	PG_TLS_PORT=
	tcp="-c listen_addresses="
	if command -v openssl >/dev/null 2>&1 &&
		openssl req -new -x509 -days 2 -nodes -subj /CN=localhost \
			-keyout "$PG_DIR/server.key" -out "$PG_DIR/server.crt" >/dev/null 2>&1; then
		chmod 600 "$PG_DIR/server.key"
		[ "$(id -u)" = 0 ] && chown "$PG_OWNER" "$PG_DIR/server.key" "$PG_DIR/server.crt"
		PG_TLS_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
		{ echo "hostnossl all all 127.0.0.1/32 reject"; cat "$PG_DATA/pg_hba.conf"; } >"$PG_DIR/hba"
		cat "$PG_DIR/hba" >"$PG_DATA/pg_hba.conf"
		tcp="-c listen_addresses=127.0.0.1 -c ssl=on -c ssl_cert_file=$PG_DIR/server.crt -c ssl_key_file=$PG_DIR/server.key"
	fi
	pg_as "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$PG_DIR/server.log" -w \
		-o "$tcp -k $PG_DIR -p ${PG_TLS_PORT:-5432} -c fsync=off" start >/dev/null || {
		cat "$PG_DIR/server.log"
		not_ok "pg_ctl start"
		exit 1
	}
	PG_PORT=${PG_TLS_PORT:-5432}
	PG_URL="postgresql://postgres@/perfdiff?host=$PG_DIR&port=$PG_PORT"
	pg_as "$PG_BIN/createdb" -h "$PG_DIR" -p "$PG_PORT" -U postgres perfdiff ||
		{ not_ok "createdb"; exit 1; }
}

pg_psql() {
	"$PG_BIN/psql" -X -q -t -A -v ON_ERROR_STOP=1 -h "$PG_DIR" -p "$PG_PORT" \
		-U postgres perfdiff "$@"
}
