#!/bin/sh
# The history keeps exactly what the runbook records: commits resolved to
# one full id (short, symbolic and backfilled shas), cache states per run,
# only real profiles as runs, bundles that cannot reach outside themselves,
# damaged and read-only databases, and bundle init's templates.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 not installed: skipped"; exit 77; }
command -v git >/dev/null || { echo "git not installed: skipped"; exit 77; }
# Outside any repository, so that only --repo resolves names.
cd "$T" || exit 1
q() { sqlite3 "$1" "$2"; }

# A throwaway repository of 8 commits, one day apart.
R=$T/repo
mkdir "$R" && git -C "$R" init -q
for i in 1 2 3 4 5 6 7 8; do
	GIT_COMMITTER_DATE="2026-01-0${i}T12:00:00+00:00" GIT_AUTHOR_DATE="2026-01-0${i}T12:00:00+00:00" \
		git -C "$R" -c user.name=t -c user.email=t@e commit -q --allow-empty -m "c$i"
done
git -C "$R" log --reverse --format='%H %cI' >"$T/commits.txt"
full() { sed -n "${1}p" "$T/commits.txt" | cut -d' ' -f1; }
date_of() { sed -n "${1}p" "$T/commits.txt" | cut -d' ' -f2; }
short() { full "$1" | cut -c1-7; }

# folded PROFILE-PATH WEIGHT: a small profile with a known total.
folded() {
	mkdir -p "$(dirname "$1")"
	printf 'main;parse %s\nmain;hash 50\n' "$2" >"$1"
}

# ---- Commits: one key per commit ----
export PERFDIFF_DB="$T/c.db"
B=$T/b
folded "$B/full/profiles/perf.folded" 100
printf '{"git_sha": "%s", "scenario": "scan_small", "cache": "warm", "commit_date": "%s"}' \
	"$(full 3)" "$(date_of 3)" >"$B/full/build_meta.json"
expect_exit 0 pd ingest "$B/full"
# The runbook's folder name with the short sha, no build_meta.json.
folded "$B/2026-01-13-$(short 3)-scan_small_warm/profiles/perf.folded" 110
expect_exit 0 pd ingest "$B/2026-01-13-$(short 3)-scan_small_warm"
[ "$(q "$PERFDIFF_DB" 'select count(distinct git_sha) from runs')" = 1 ] && ok ||
	not_ok "a short sha next to its full one made a second commit: $(q "$PERFDIFF_DB" 'select distinct git_sha from runs')"
[ "$(q "$PERFDIFF_DB" 'select git_sha from runs limit 1')" = "$(full 3)" ] && ok || not_ok "stored under the full sha"
# The other order: the prefix first, the full id later merges it.
export PERFDIFF_DB="$T/c2.db"
expect_exit 0 pd ingest "$B/2026-01-13-$(short 3)-scan_small_warm"
[ "$(q "$PERFDIFF_DB" 'select git_sha from runs')" = "$(short 3)" ] && ok || not_ok "prefix kept as given"
expect_exit 0 pd ingest "$B/full"
expect_grep "stored runs of $(short 3) are now under $(full 3), the same commit" "$T/err"
[ "$(q "$PERFDIFF_DB" 'select count(distinct git_sha) || "," || count(*) from runs')" = "1,2" ] && ok ||
	not_ok "prefix not merged into the full sha"
[ "$(q "$PERFDIFF_DB" "select count(*) from runs where commit_date = '$(date_of 3)'")" = 2 ] && ok ||
	not_ok "merged runs take the commit date"
expect_exit 0 pd compare "$(full 3)" "$(short 3)" --scenario scan_small -f json
# A prefix of two stored commits is refused and changes nothing.
export PERFDIFF_DB="$T/c3.db"
for x in 1 2; do
	folded "$B/amb$x/profiles/perf.folded" 100
	printf '{"git_sha": "abcdef1%033d", "scenario": "s", "cache": "warm"}' "$x" >"$B/amb$x/build_meta.json"
	expect_exit 0 pd ingest "$B/amb$x"
done
folded "$B/amb/profiles/perf.folded" 100
printf '{"git_sha": "abcdef1", "scenario": "s", "cache": "warm"}' >"$B/amb/build_meta.json"
sqlite3 "$PERFDIFF_DB" .dump >"$T/before.sql"
expect_exit 2 pd ingest "$B/amb"
expect_grep "git sha abcdef1 is ambiguous: the history has abcdef1.* and abcdef1" "$T/err"
expect_lines 1 "$T/err"
sqlite3 "$PERFDIFF_DB" .dump >"$T/after.sql"
cmp -s "$T/before.sql" "$T/after.sql" && ok || not_ok "a refused ambiguous bundle changed the database"
# Names are not shas: refused without a repository, resolved with one.
folded "$B/sym/profiles/perf.folded" 100
printf '{"git_sha": "HEAD~3", "scenario": "s", "cache": "warm"}' >"$B/sym/build_meta.json"
expect_exit 2 pd ingest "$B/sym"
expect_grep 'git sha "HEAD~3" (from build_meta.json) is not a commit id; a name such as HEAD~3 needs --repo' "$T/err"
expect_exit 0 pd ingest --repo "$R" "$B/sym"
[ "$(q "$PERFDIFF_DB" "select git_sha || ' ' || commit_date from runs where scenario = 's' and git_sha not like 'abcdef1%'")" = "$(full 5) $(date_of 5)" ] &&
	ok || not_ok "HEAD~3 resolved to its own id and date"
expect_exit 2 pd ingest --repo "$R" --sha 0123456 --scenario s --cache warm "$B/sym/profiles/perf.folded"
expect_grep "0123456 (from --sha) is not a commit of $R" "$T/err"

# bundle init --sha HEAD~3: that commit and that commit's date.
(cd "$R" && "$PERFDIFF" bundle init "$T/deep/er/b0" --scenario s --cache cold --sha HEAD~3 \
	--build-cmd "make -j8") >"$T/out" 2>"$T/err"
[ $? -eq 0 ] && ok || not_ok "bundle init in a missing parent: $(cat "$T/err")"
if python3 - "$T/deep/er/b0/build_meta.json" "$(full 5)" "$(date_of 5)" <<'PY'; then ok; else not_ok "bundle init --sha HEAD~3"; fi
import json, sys
m = json.load(open(sys.argv[1]))
assert m["git_sha"] == sys.argv[2], m
assert m["commit_date"] == sys.argv[3], m
assert m["build_cmd"] == "make -j8", m
PY
for f in run_args.txt notes.md; do [ -s "$T/deep/er/b0/$f" ] && ok || not_ok "bundle init wrote no $f"; done
# Compiler flags from the build system.
printf '[{"directory": "/src", "file": "a.c", "command": "cc -O2 -g -DNAME=\\"a b\\" -c a.c -o a.o"},
 {"directory": "/src", "file": "b.c", "arguments": ["cc", "-O2", "-march=x86-64-v3", "-c", "b.c"]}]' >"$T/cc.json"
(cd "$R" && "$PERFDIFF" bundle init "$T/b9" --scenario s --cache warm --cflags-from "$T/cc.json") >"$T/out" 2>"$T/err"
if python3 - "$T/b9/build_meta.json" <<'PY'; then ok; else not_ok "--cflags-from"; fi
import json, sys
m = json.load(open(sys.argv[1]))
assert m["cflags"] == "-O2 -g '-DNAME=a b' -march=x86-64-v3", m["cflags"]
PY
expect_exit 2 pd bundle init "$T/b10" --scenario s --cache hot
expect_grep "cache hot: a cache state is warm, cold or unspecified" "$T/err"

# ---- Backfill: bundles of older commits, made and stored out of order ----
export PERFDIFF_DB="$T/bf.db"
for i in 8 3 1 6 2 7 4 5; do
	d=$B/2026-02-0$i-$(short $i)-backfill
	folded "$d/profiles/run_warm.folded" $((100 + i))
	expect_exit 0 pd ingest --repo "$R" "$d"
done
expect_exit 0 pd trend --scenario backfill --cache warm -f json
if python3 - "$T/out" "$T/commits.txt" <<'PY'; then ok; else not_ok "backfilled trend order"; fi
import json, sys
d = json.load(open(sys.argv[1]))
want = [l.split()[0] for l in open(sys.argv[2])]
got = [c["sha"] for c in d["commits"]]
assert got == want, (got, want)
PY

# ---- Cache states per run ----
export PERFDIFF_DB="$T/cache.db"
W=$B/2026-03-01-$(short 2)-mixed
folded "$W/profiles/scan_warm.perf.folded" 100
folded "$W/profiles/scan_cold.perf.folded" 300
folded "$W/profiles/scan-ColdStart-2.perf.folded" 310
expect_exit 0 pd ingest "$W"
[ "$(q "$PERFDIFF_DB" "select group_concat(cache || ':' || cast(total_weight as int), ' ') from (select cache, total_weight from runs order by source)")" = "cold:360 cold:350 warm:150" ] &&
	ok || not_ok "per-run cache states: $(q "$PERFDIFF_DB" 'select cache, source from runs')"
L=$B/lukewarm
folded "$L/profiles/perf.folded" 100
printf '{"git_sha": "%s", "scenario": "s", "cache": "lukewarm"}' "$(full 1)" >"$L/build_meta.json"
expect_exit 2 pd ingest "$L"
expect_grep 'cache state "lukewarm" (from build_meta.json) is neither warm, cold nor unspecified' "$T/err"
expect_exit 2 pd ingest --sha "$(full 1)" --scenario s --cache lukewarm "$L/profiles/perf.folded"
expect_grep "cache lukewarm: a cache state is warm, cold or unspecified" "$T/err"

# ---- Runs are profiles: notes and links that leave the bundle are not ----
export PERFDIFF_DB="$T/runs.db"
N=$B/notes
folded "$N/profiles/perf.folded" 100
printf 'ran 3 times 2\nwarm cache 1\n' >"$N/profiles/notes.txt"
printf 'app --threads 8\n' >"$N/profiles/run_args.txt"
ln -s / "$N/profiles/root"
ln -s "$T/commits.txt" "$N/profiles/outside.folded"
folded "$N/inputs/kept.folded" 200
ln -s ../inputs/kept.folded "$N/profiles/inside.folded"
printf '{"git_sha": "%s", "scenario": "s", "cache": "warm"}' "$(full 2)" >"$N/build_meta.json"
expect_exit 0 pd ingest "$N"
expect_grep "skipped .*notes.txt: its name says it is not a profile" "$T/err"
expect_grep "skipped .*run_args.txt: its name says" "$T/err"
expect_grep "skipped .*profiles/root: a link leading out of the bundle" "$T/err"
expect_grep "skipped .*profiles/outside.folded: a link leading out" "$T/err"
[ "$(q "$PERFDIFF_DB" "select group_concat(source || ':' || cast(total_weight as int), ' ') from (select source, total_weight from runs order by source)")" = "inside.folded:250 perf.folded:150" ] &&
	ok || not_ok "runs: $(q "$PERFDIFF_DB" 'select source, total_weight from runs')"
# A FIFO is refused at once, never waited on.
F=$B/fifo
folded "$F/profiles/perf.folded" 100
mkfifo "$F/build_meta.json"
expect_exit 2 with_timeout 20 "$PERFDIFF" ingest --sha "$(full 1)" --scenario s --cache warm "$F"
expect_grep "build_meta.json: a FIFO, not a file; refused" "$T/err"
rm "$F/build_meta.json" && mkfifo "$F/profiles/pipe.folded"
expect_exit 2 with_timeout 20 "$PERFDIFF" ingest --sha "$(full 1)" --scenario s --cache warm "$F"
expect_grep "pipe.folded: a FIFO, not a file; a bundle holds files and folders only" "$T/err"

# ---- The database ----
# Damaged: ingest refuses before writing, says how to recover, and the file
# is left as it was.
export PERFDIFF_DB="$T/bad.db"
expect_exit 0 pd ingest "$B/full"
expect_exit 0 pd ingest "$B/notes"
sqlite3 "$PERFDIFF_DB" 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
# Garbage over the header of page 3 (the runs table's root).
python3 - "$PERFDIFF_DB" <<'PY'
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(2 * 16384)
    f.write(b"\xa5" * 64)
PY
cksum "$PERFDIFF_DB" >"$T/sum.before"
expect_exit 2 pd ingest "$B/sym/profiles/perf.folded" --sha "$(full 1)" --scenario t --cache warm
expect_grep "bad.db: .*sqlite3 '$PERFDIFF_DB' .recover | sqlite3 RECOVERED.db" "$T/err"
expect_lines 1 "$T/err"
cksum "$PERFDIFF_DB" >"$T/sum.after"
cmp -s "$T/sum.before" "$T/sum.after" && ok || not_ok "a damaged database was written to"
# Newer schema.
export PERFDIFF_DB="$T/new.db"
expect_exit 0 pd ingest "$B/full"
sqlite3 "$PERFDIFF_DB" 'PRAGMA user_version = 99'
expect_exit 2 pd runs
expect_grep "new.db: created by a newer perfdiff (schema 99 > $(sqlite3 "$T/c.db" "PRAGMA user_version"))" "$T/err"
# Read-only: every read command reads it, in a folder nobody may write.
mkdir "$T/ro"
export PERFDIFF_DB="$T/ro/h.db"
for x in full notes; do expect_exit 0 pd ingest "$B/$x"; done
chmod 0444 "$PERFDIFF_DB" && chmod 0555 "$T/ro"
as_user() { "$@"; }
if [ "$(id -u)" = 0 ]; then
	# root writes anywhere: read as an unprivileged user instead
	if command -v setpriv >/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
		chmod 0755 "$T"
		as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	else
		as_user() { echo "skip: no unprivileged user" >&2; return 0; }
	fi
fi
for cmd in "runs" "compare $(full 3) $(full 3) --scenario scan_small" "trend --scenario scan_small" \
	"check db:$(full 3):scan_small db:$(full 3):scan_small"; do
	# shellcheck disable=SC2086
	as_user "$PERFDIFF" $cmd >"$T/out" 2>"$T/err"
	rc=$?
	if { [ $rc -le 1 ] || [ $rc = 125 ]; } && ! grep -q "unable to open\|readonly\|cannot open" "$T/err"; then ok; else
		not_ok "read-only '$cmd' exited $rc: $(head -c 300 "$T/err")"
	fi
done
[ ! -e "$T/ro/h.db-shm" ] || [ "$(id -u)" != 0 ] || ok
chmod 0755 "$T/ro"
# A committed change still in the -wal (as a crash leaves it), in a folder
# that cannot be written: read as an immutable file the -wal would be
# missed without a word, so it is refused and says what to do.
mkdir "$T/rowal"
python3 - "$T/ro/h.db" "$T/rowal" <<'PY'
import shutil, sqlite3, sys
src, dst = sys.argv[1], sys.argv[2]
shutil.copy(src, dst + "/h.db")
c = sqlite3.connect(dst + "/h.db")
c.execute("PRAGMA wal_autocheckpoint = 0")
c.execute("UPDATE runs SET host = 'later' WHERE id = 1")
c.commit()
shutil.copy(dst + "/h.db", dst + "/w.db")          # the pair as a crash
shutil.copy(dst + "/h.db-wal", dst + "/w.db-wal")  # leaves it
c.close()
PY
rm -f "$T/rowal/h.db"*
chmod 0444 "$T/rowal/w.db" "$T/rowal/w.db-wal" && chmod 0555 "$T/rowal"
as_user "$PERFDIFF" runs --db "$T/rowal/w.db" >"$T/out" 2>"$T/err"
rc=$?
if [ "$(id -u)" != 0 ] || command -v setpriv >/dev/null; then
	[ $rc = 2 ] && grep -q "w.db-wal holds changes not yet in the file, and its folder cannot be written" "$T/err" &&
		ok || not_ok "a -wal on a read-only folder: exit $rc: $(cat "$T/err")"
fi
chmod 0755 "$T/rowal"

# ---- Reports carry each side's commit, scenario, cache and runs ----
P=$B/2026-03-02-$(short 4)-prov
folded "$P/profiles/a-warm.folded" 100
folded "$P/profiles/b-warm.folded" 102
expect_exit 0 pd -f md "$B/full" "$P"
# (Markdown escapes the underscore of scan_small)
expect_grep "commit $(full 3), scenario scan.*small, cache warm, tool folded; 1 run: profiles/perf.folded" "$T/out"
expect_grep "commit $(short 4), scenario prov, cache warm, tool folded; 2 runs: profiles/a-warm.folded, profiles/b-warm.folded" "$T/out"
expect_exit 0 pd -f html -o "$T/r.html" "$B/full" "$P"
expect_grep "commit $(short 4), scenario prov" "$T/r.html"

# ---- Nightly: only what is new is said ----
export PERFDIFF_DB="$T/n.db"
expect_exit 0 pd ingest "$B/full" "$B/notes"
expect_exit 0 pd ingest "$B/full" "$B/notes" "$P"
if grep -q "already stored, skipped" "$T/err" && ! grep -q "2 of 3 bundles" "$T/err"; then
	not_ok "every stored bundle named: $(cat "$T/err")"
else ok; fi
expect_grep "2 of 3 bundles already stored, skipped" "$T/err"
expect_grep "prov: 2 runs" "$T/out"

echo "$pass passed, $failed failed"
[ "$failed" -eq 0 ]
