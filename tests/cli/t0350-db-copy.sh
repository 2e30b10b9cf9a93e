#!/bin/sh
# db copy between SQLite files (t0700 does the server): a new file is the
# source row for row; a copy that fails, or is stopped by a signal or
# killed, leaves no destination file at all (it is written under a
# temporary name and renamed when whole); a history that exists is
# written in one transaction, into an empty one only.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 not installed: skipped"; exit 77; }
python3 - "$T" <<'PY'
import os, sys
t = sys.argv[1]
for b in range(4):
    os.makedirs("%s/b%d/profiles" % (t, b))
    with open("%s/b%d/build_meta.json" % (t, b), "w") as f:
        f.write('{"git_sha": "%07x", "scenario": "c", "cache": "warm"}' % (b + 1))
    for r in range(3):
        with open("%s/b%d/profiles/r%d.folded" % (t, b, r), "w") as f:
            for i in range(20000):
                f.write("main;mod%d::fn%d;leaf%d %d\n" % (i % 50, i, i % 7, 1 + (i * 7 + r) % 13))
PY
expect_exit 0 pd ingest --db "$T/h.db" "$T/b0" "$T/b1" "$T/b2" "$T/b3"

# a new file: the source row for row, under the name asked for
expect_exit 0 pd db copy "$T/h.db" "$T/new.db"
expect_grep "new.db: 4 bundles, 12 runs, " "$T/out"
sqlite3 "$T/h.db" .dump >"$T/h.dump"
sqlite3 "$T/new.db" .dump >"$T/new.dump"
cmp -s "$T/h.dump" "$T/new.dump" && ok || not_ok "copy differs: $(diff "$T/h.dump" "$T/new.dump" | head -3)"

# into a history that is not empty: refused, one line, nothing written
expect_exit 2 pd db copy "$T/h.db" "$T/new.db"
expect_grep "holds a history already" "$T/err"
expect_lines 1 "$T/err"
sqlite3 "$T/new.db" .dump | cmp -s - "$T/h.dump" && ok || not_ok "refused copy wrote"

# a copy that fails half way (a source whose runs table lost a NOT NULL,
# with a NULL in it): exit 2, one line naming the file asked for, and no
# file, not even an empty history
cp "$T/h.db" "$T/bad.db"
sqlite3 "$T/bad.db" "PRAGMA writable_schema=ON; UPDATE sqlite_schema SET sql=replace(sql, 'git_sha       TEXT NOT NULL', 'git_sha       TEXT') WHERE name='runs';" || not_ok "schema edit"
sqlite3 "$T/bad.db" "UPDATE runs SET git_sha = NULL WHERE id = 12" || not_ok "null sha"
expect_exit 2 pd db copy "$T/bad.db" "$T/fail.db"
expect_grep "^perfdiff: $T/fail.db: adding a run: NOT NULL constraint failed" "$T/err"
expect_lines 1 "$T/err"
if ls "$T"/fail.db* >/dev/null 2>&1; then not_ok "a failed copy left $(ls "$T"/fail.db*)"; else ok; fi

# stopped by SIGTERM or killed at random moments: the destination is
# whole or absent; SIGTERM also takes the temporary file away
i=0
while [ $i -lt 12 ]; do
	sig=TERM
	[ $((i % 2)) = 1 ] && sig=KILL
	rm -f "$T"/k.db*
	"$PERFDIFF" db copy "$T/h.db" "$T/k.db" >/dev/null 2>&1 &
	pid=$!
	sleep "0.$(awk -v s="$i" 'BEGIN { srand(s * 104729 + 3); printf "%03d", int(rand() * 300) }')"
	kill -$sig "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	if [ -e "$T/k.db" ]; then
		sqlite3 "$T/k.db" .dump | cmp -s - "$T/h.dump" && ok || not_ok "a stopped copy left a partial $T/k.db"
	else
		ok
	fi
	if [ $sig = TERM ] && ls "$T"/k.db.tmp.* >/dev/null 2>&1; then
		not_ok "SIGTERM left $(ls "$T"/k.db.tmp.*)"
	fi
	i=$((i + 1))
done

# an empty file that exists is a history to fill, in place
: >"$T/empty.db"
expect_exit 0 pd db copy "$T/h.db" "$T/empty.db"
sqlite3 "$T/empty.db" .dump | cmp -s - "$T/h.dump" && ok || not_ok "copy into an empty file differs"
finish
