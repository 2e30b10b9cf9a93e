#!/bin/sh
# Whole runs are read from their packed rows (docs/history.md, "Tables"),
# and runs stored before schema 3 from run_functions: compare (noise
# learned from 30 commits) and trend answer byte for byte alike on a
# history whose runs are all packed, none packed, and a schema-2 file
# migrated half way; a damaged blob is an error naming its run.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 not installed: skipped"; exit 77; }
cd "$T" || exit 1

# bundle I: commit I's folded profile; 12 functions whose counts vary
# from commit to commit, parse 40 % slower from commit 28 on, a weight
# that is not a whole number of samples in every third commit.
bundle() {
	mkdir -p "b$1/profiles"
	awk -v c="$1" 'BEGIN {
		for (f = 1; f <= 12; f++) {
			n = 2000 + f * 370 + (c * 53 + f * 17) % 41
			if (f == 3 && c >= 28) n = int(n * 1.4)
			printf "main;run;f%02d %d\n", f, n
		}
		printf "main;parse %d\n", (c >= 28 ? 7000 : 5000) + c % 7
	}' >"b$1/profiles/perf.folded"
	printf '{"git_sha": "%040x", "scenario": "s", "cache": "warm", "commit_date": "2026-%02d-%02dT00:00:00Z"}' \
		"$1" "$(( ($1 - 1) / 28 + 1 ))" "$(( ($1 - 1) % 28 + 1 ))" >"b$1/build_meta.json"
}
i=1
while [ $i -le 36 ]; do
	bundle $i
	i=$((i + 1))
done
sha() { printf '%040x' "$1"; }
# ingest FROM TO: bundles FROM..TO into $PERFDIFF_DB
ingest() {
	i=$1
	while [ "$i" -le "$2" ]; do
		expect_exit 0 pd ingest "b$i"
		i=$((i + 1))
	done
}

export PERFDIFF_DB="$T/all.db"
ingest 1 36
[ "$(sqlite3 all.db 'SELECT count(*) FROM run_packed')" = 36 ] && ok || not_ok "a packed row per run"

# The same history, none packed (as every run stored before schema 3).
cp all.db none.db
sqlite3 none.db 'DELETE FROM run_packed'

# A schema-2 file (what sql/0003_whole_runs.sql adds undone): refused until an
# ingest migrates it; its older runs then stay unpacked.
export PERFDIFF_DB="$T/old.db"
ingest 1 20
sqlite3 old.db 'DROP TABLE alerts; DROP TABLE run_files; DROP TABLE run_bursts; DROP TABLE run_packed; DROP INDEX runs_by_date; DROP INDEX runs_by_sha; PRAGMA user_version = 2'
expect_exit 2 pd runs
expect_grep "old.db: written by an older perfdiff (schema 2 < 6); perfdiff ingest migrates it in place" "$T/err"
ingest 21 36
[ "$(sqlite3 old.db 'SELECT count(*) || " " || min(run_id) FROM run_packed')" = "16 21" ] && ok ||
	not_ok "runs after the migration packed: $(sqlite3 old.db 'SELECT count(*), min(run_id) FROM run_packed')"

# A schema-3 file (sql/0004_run_bursts.sql and later undone) migrates the
# same way.
cp all.db old3.db
sqlite3 old3.db 'DROP TABLE alerts; DROP TABLE run_files; DROP TABLE run_bursts; PRAGMA user_version = 3'
PERFDIFF_DB="$T/old3.db" expect_exit 2 pd runs
expect_grep "old3.db: written by an older perfdiff (schema 3 < 6); perfdiff ingest migrates it in place" "$T/err"
PERFDIFF_DB="$T/old3.db" expect_exit 0 pd ingest b1
[ "$(sqlite3 old3.db 'PRAGMA user_version; SELECT count(*) FROM run_bursts')" = "6
0" ] && ok || not_ok "schema 3 migrated: $(sqlite3 old3.db 'PRAGMA user_version')"

for db in all none old; do
	export PERFDIFF_DB="$T/$db.db"
	pd compare "$(sha 27)" "$(sha 28)" --scenario s -f json >"cmp.$db" 2>"cmp.$db.err"
	echo "exit $?" >>"cmp.$db"
	pd compare "$(sha 27)" "$(sha 28)" --scenario s >>"cmp.$db" 2>>"cmp.$db.err"
	echo "exit $?" >>"cmp.$db"
	pd trend --scenario s --last 36 -f json >"trend.$db" 2>"trend.$db.err"
	echo "exit $?" >>"trend.$db"
done
sed -n '/^regressed/,$p' cmp.all >cmp.text
# the noise was learned and the step found, or the comparison proves little
grep -q '"verdict":[[:space:]]*"regressed"' cmp.all && ok || not_ok "parse's regression: $(head -c 300 cmp.all)"
grep -q 'run-to-run variation learned from history' cmp.text && ok || not_ok "noise from the history: $(cat cmp.text)"
grep -q 'parse' trend.all && ok || not_ok "trend's series: $(head -c 300 trend.all)"
for db in none old; do
	cmp -s cmp.all "cmp.$db" && ok || not_ok "compare on $db.db differs: $(diff cmp.all "cmp.$db" | head -5)"
	cmp -s trend.all "trend.$db" && ok || not_ok "trend on $db.db differs: $(diff trend.all "trend.$db" | head -5)"
done

# A damaged blob: one line naming the run, exit 2.
cp all.db bad.db
sqlite3 bad.db "UPDATE run_packed SET rows = substr(rows, 1, length(rows) - 3) WHERE run_id = 30"
export PERFDIFF_DB="$T/bad.db"
expect_exit 2 pd trend --scenario s --last 36
expect_grep "bad.db: run 30: damaged packed rows" "$T/err"
expect_lines 1 "$T/err"
expect_exit 2 pd compare "$(sha 35)" "$(sha 36)" --scenario s
expect_grep "bad.db: run 30: damaged packed rows" "$T/err"
finish
