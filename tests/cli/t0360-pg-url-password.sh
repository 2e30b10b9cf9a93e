#!/bin/sh
# A password written raw in a postgresql:// URL, with a '/' (and a ':',
# '?', '@' or bad percent escape) in it, reaches no output in any piece
# (docs/history.md, "Backends"): libpq cuts the URL at the '/' and quotes
# what it read as a port, a host or a query back ("invalid integer value
# "Zq" for connection option "port""); perfdiff says so in one line with
# the server shown without the password, tells to write '/' as %2F, and
# exits 2. No server is needed: libpq fails while reading the URL, or on
# a socket that does not exist. The pieces are the password split at
# '/', '?', '#', '@', ':', '&' and '=' by hand, each one checked.
. "$(dirname "$0")/lib.sh"

mkdir -p "$T/b/profiles"
echo 'main;a 1' >"$T/b/profiles/run.1.folded"
printf '{"git_sha": "%s", "scenario": "s", "cache": "warm"}\n' \
	aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa >"$T/b/build_meta.json"

expect_exit 2 pd runs --db "postgresql://user@host/db?port=bad"
if grep -q "no PostgreSQL in this build" "$T/err"; then
	echo "perfdiff built without libpq: skipped"
	exit 77
fi

# no_fragment PASSWORD: neither it nor a piece of it in $T/out, $T/err
no_fragment() {
	for piece in "$1" $(printf '%s' "$1" | sed 's|[/?#@:&=]| |g'); do
		if grep -q -F -e "$piece" "$T/out" "$T/err"; then
			not_ok "'$piece' of the password '$1' shown: $(cat "$T/err")"
		else ok; fi
	done
}

# url_case URL SHOWN PASSWORD HINT: every way to give URL fails the same
url_case() {
	for how in runs json ingest env; do
		case $how in
		runs) expect_exit 2 pd runs --db "$1" ;;
		json) expect_exit 2 pd runs -f json --db "$1" ;;
		ingest) expect_exit 2 pd ingest --db "$1" "$T/b" ;;
		env) expect_exit 2 env PERFDIFF_DB="$1" "$PERFDIFF" runs ;;
		esac
		expect_lines 1 "$T/err"
		expect_lines 0 "$T/out"
		expect_grep "^perfdiff: $2: cannot connect: " "$T/err"
		if [ -n "$4" ]; then expect_grep "$4" "$T/err"
		else expect_no_grep "%2F" "$T/err"; fi
		no_fragment "$3"
	done
}

# libpq reads host "user" and a port of the first piece
url_case 'postgresql://user:Zq/Kx7w@host/db' 'postgresql://user@host/db' \
	'Zq/Kx7w' "write '/' in the URL's password as %2F"
# ... of one character
url_case 'postgresql://user:Q/Wv9j@host/db' 'postgresql://user@host/db' \
	'Q/Wv9j' "write '/' in the URL's password as %2F"
# ... holding a ':'
url_case 'postgresql://user:Jk:Zz/Wq8@host/db' 'postgresql://user@host/db' \
	'Jk:Zz/Wq8' "write '/' in the URL's password as %2F"
# a query of the pieces after a '?'
url_case 'postgresql://user:Xy?Vw/Zz3@host/db' 'postgresql://user@host/db' \
	'Xy?Vw/Zz3' "write '/' in the URL's password as %2F"
# a percent escape libpq cannot decode after the '/'
url_case 'postgresql://user:Kq/%zzWm4@host/db' 'postgresql://user@host/db' \
	'Kq/%zzWm4' "write '/' in the URL's password as %2F"
# an '@' before the '/': libpq reads the password "Pf" and a database
# "Jr5@host/db", on a socket that does not exist
url_case 'postgresql://user:Pf@/Jr5@host/db?host=/nonexistent-perfdiff' \
	'postgresql://user@host/db?host=/nonexistent-perfdiff' \
	'Pf@/Jr5' "write '/' and '@' in the URL's password as %2F and %40"
# a password= parameter is read whole by libpq: no hint, no piece shown
url_case 'postgresql://user@host/db?password=Zq/Kx7w&port=bad' \
	'postgresql://user@host/db?port=bad' 'Zq/Kx7w' ''
finish
