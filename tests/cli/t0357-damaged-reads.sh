#!/bin/sh
# A damaged history is refused by every command that reads it, with one
# line that names the file and the way out (a shell command with the path
# quoted), exit 2: a row changed in place (the runs table's indexes no
# longer agree with it, which only PRAGMA integrity_check sees) and
# garbage over a page's header. The damage is made here with python3; the
# expected finding comes from the sqlite3 shell's own integrity_check.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 not installed: skipped"; exit 77; }
tail=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
D="$T/it's a dir"
mkdir "$D"
export PERFDIFF_DB="$D/h.db"
c=1
while [ "$c" -le 4 ]; do
	b=$T/b$c
	mkdir -p "$b/profiles"
	printf '{"git_sha": "%02d%s", "scenario": "syn", "cache": "warm", "commit_date": "2026-04-%02dT00:00:00Z"}\n' \
		"$c" "$tail" "$c" >"$b/build_meta.json"
	for r in 1 2; do
		printf 'main;parse %d\nmain;read %d\n' $((1000 + c + r)) $((2000 - r)) >"$b/profiles/run.$r.folded"
	done
	c=$((c + 1))
done
expect_exit 0 pd ingest "$T"/b*
sqlite3 "$PERFDIFF_DB" 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
cp "$PERFDIFF_DB" "$T/clean.db"
site=0

# every_read_refuses: each read command exits 2 with the one line.
every_read_refuses() {
	for cmd in "runs" "compare 01$tail 02$tail --scenario syn" \
		"trend --scenario syn" "culprit --scenario syn" "site SITE" \
		"check db:01$tail:syn db:02$tail:syn"; do
		site=$((site + 1))
		want=2
		# check says an error as git bisect run wants it: 128
		case $cmd in check*) want=128 ;; esac
		# shellcheck disable=SC2046
		expect_exit $want pd $(echo "$cmd" | sed "s|SITE|$T/site$site|")
		expect_lines 1 "$T/err"
		expect_grep "h.db: PRAGMA $1: .*; the file is damaged; recover what it holds with: sqlite3 '$T/it'\\\\''s a dir/h.db' .recover | sqlite3 RECOVERED.db\$" "$T/err"
	done
}

# A run's git sha changed in place: the page stays well formed, so SQLite
# reads the row as it now is; its indexes still hold the old sha.
python3 - "$PERFDIFF_DB" "03$tail" <<'PY'
import sys
path, sha = sys.argv[1], sys.argv[2].encode()
data = bytearray(open(path, "rb").read())
i = data.find(sha)
assert i > 0
data[i:i + 2] = b"99"
open(path, "wb").write(data)
PY
sqlite3 "$PERFDIFF_DB" 'PRAGMA integrity_check' | grep -q 'missing from index' &&
	ok || not_ok "the row change was not seen by sqlite3's integrity_check"
every_read_refuses integrity_check

# The path in the message is one shell word that gives the file back.
word=$(sed 's/.*recover what it holds with: sqlite3 \(.*\) \.recover | .*/\1/' "$T/err")
eval "set -- $word"
[ $# -eq 1 ] && [ "$1" = "$PERFDIFF_DB" ] && ok || not_ok "the path quoted as $word"

# Garbage over the middle of the runs table's page (header and cells).
cp "$T/clean.db" "$PERFDIFF_DB"
python3 - "$PERFDIFF_DB" <<'PY'
import sys
path = sys.argv[1]
data = bytearray(open(path, "rb").read())
page = 16384
i = data.find(b"syn")  # a runs row: its page is the runs table's
start = i - i % page
data[start:start + 96] = b"\xa5" * 96
open(path, "wb").write(data)
PY
sqlite3 "$PERFDIFF_DB" 'PRAGMA integrity_check' >"$T/ic" 2>&1
grep -qx ok "$T/ic" && not_ok "garbage not seen by sqlite3's integrity_check" || ok
every_read_refuses '[a-z_]*'

# A sound history still reads.
cp "$T/clean.db" "$PERFDIFF_DB"
expect_exit 0 pd runs
expect_grep "04aaaaaaaaaa *syn" "$T/out"
finish
