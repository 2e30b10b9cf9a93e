#!/bin/sh
# Makes the history fuzz target's seeds (fixtures/fuzz/history/*.db) anew
# with the perfdiff built here, so that they are at the schema it reads:
#
#   scripts/fuzz-seeds.sh [PERFDIFF]
#
# PERFDIFF defaults to $PERFDIFF, else build/perfdiff. Run it after a
# migration is added to sql/ (unit_seeds fails, naming each seed, until
# then), and commit what it writes. Each seed is a history `perfdiff
# ingest` made from tiny bundles written here, then vacuumed to 512-byte
# pages in rollback mode, as the target reads them (docs/reliability.md,
# "How the fuzzers and the sanitizer passes run"): 12 to 16 KB, one page
# for each table and index. The bundles' folder and the ingest time are
# set to fixed values, so the same code makes the same bytes. The seeds
# named damaged-* hold a NULL in a NOT NULL column (written as t0358
# does), which the read commands refuse at open. The files libFuzzer
# merged into the folder (named by their SHA-1) are left alone.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
pd=${1:-${PERFDIFF:-$root/build/perfdiff}}
case $pd in /*) ;; *) pd=$(pwd)/$pd ;; esac
out=$root/fixtures/fuzz/history
[ -x "$pd" ] || {
	echo "fuzz-seeds: $pd: no perfdiff binary (build it first)" >&2
	exit 2
}
command -v sqlite3 >/dev/null || {
	echo "fuzz-seeds: the sqlite3 shell is needed" >&2
	exit 2
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

# bundle DIR SHA CACHE DATE: a bundle folder with its build_meta.json
bundle() {
	mkdir -p "$1/profiles"
	printf '{"git_sha": "%s", "scenario": "s", "cache": "%s", "commit_date": "%s"}\n' \
		"$2" "$3" "$4" >"$1/build_meta.json"
}

# perf_text SEED N: perf script text of N samples a millisecond apart,
# parse, hash and a kernel frame in proportions SEED moves, so that the
# time blocks differ and ingest stores dispersions (run_bursts)
perf_text() {
	awk -v seed="$1" -v n="$2" 'BEGIN {
		for (i = 0; i < n; i++) {
			k = (i * 7 + seed * 3 + int(i / 16) * seed) % 5
			printf "prog   100/101 [000]     %.6f:     250000 cpu-clock:u: \n", 1 + i / 1000
			if (k < 2)
				print "\t          4005d0 parse+0x10 (/opt/app/prog)"
			else if (k < 4)
				print "\t          4005e0 hash+0x4 (/opt/app/prog)"
			else
				print "\tffffffff81000000 do_syscall_64+0x5 ([kernel.kallsyms])"
			print "\t          400600 main+0x20 (/opt/app/prog)\n"
		}
	}'
}

# folded DIR R PARSE HASH MAIN: run R of a bundle as folded stacks
folded() {
	printf 'main;parse %d\nmain;hash %d\nmain %d\n' "$3" "$4" "$5" \
		>"$1/profiles/run.$2.folded"
}

# history NAME BUNDLE...: the bundles ingested into NAME, made small
history() {
	name=$1
	shift
	rm -f "$name"
	"$pd" ingest --db "$name" "$@" >/dev/null
	sqlite3 "$name" "PRAGMA journal_mode = DELETE;" >/dev/null
	sqlite3 "$name" "UPDATE bundles SET path = replace(path, '$tmp/', ''),
		ingested_at = '2026-01-01T00:00:00Z';
		PRAGMA page_size = 512; VACUUM;"
}

# damage NAME TABLE DECL WHERE: NULL in the column TABLE declares DECL
# (NOT NULL) of the rows WHERE picks: the constraint dropped, the NULL
# written, the constraint put back, so the file SQLite reads is the
# damaged one
damage() {
	loose=$(echo "$3" | sed 's/ NOT NULL$//')
	sqlite3 "$1" "PRAGMA writable_schema = ON;
		UPDATE sqlite_master SET sql = replace(sql, '$3', '$loose')
		WHERE name = '$2';"
	sqlite3 "$1" "UPDATE $2 SET ${3%% *} = NULL WHERE $4;"
	sqlite3 "$1" "PRAGMA writable_schema = ON;
		UPDATE sqlite_master SET sql = replace(sql, '$loose', '$3')
		WHERE name = '$2';"
	sqlite3 "$1" "VACUUM;"
}

# three commits of two folded runs: the fuzz target compares the first
# two listed and learns the noise from the third
bundle f1 1111111aaaa warm 2026-03-01
folded f1 1 40 30 5
folded f1 2 36 25 2
bundle f2 2222222bbbb warm 2026-03-02
folded f2 1 60 28 4
folded f2 2 55 31 3
bundle f3 3333333cccc warm 2026-03-03
folded f3 1 41 27 6
folded f3 2 39 29 4
history two-commits-folded.db f1 f2 f3
# two commits alone: no other commit to learn the noise from
history noise-no-other-commit.db f1 f2

# perf stat counters alone, a run a commit
bundle c1 1111111aaaa warm 2026-03-01
cp "$root/fixtures/perfstat/base.stat.csv" c1/profiles/run.1.stat.csv
bundle c2 2222222bbbb warm 2026-03-02
cp "$root/fixtures/perfstat/cand.stat.csv" c2/profiles/run.1.stat.csv
history perf-stat-counters.db c1 c2

# perf script with sample times (dispersions stored) and the counters
# joined to the first run, cold cache
for c in 1 2; do
	bundle "p$c" "$c$c$c$c$c$c${c}dddd" cold "2026-03-0$c"
	perf_text $((2 * c + 1)) 96 >"p$c/profiles/run.1.perf.txt"
	perf_text $((2 * c + 2)) 96 >"p$c/profiles/run.2.perf.txt"
done
cp "$root/fixtures/perfstat/base.stat.csv" p1/profiles/run.1.stat.csv
cp "$root/fixtures/perfstat/cand.stat.csv" p2/profiles/run.1.stat.csv
history perf-times-bursts.db p1 p2

# an empty history: an ingest that stores nothing still makes one
bundle e 1111111aaaa warm 2026-03-01
"$pd" ingest --db no-runs.db e >/dev/null 2>&1 || true
[ -f no-runs.db ] || {
	echo "fuzz-seeds: ingest made no empty history" >&2
	exit 1
}
sqlite3 no-runs.db "PRAGMA journal_mode = DELETE;" >/dev/null
sqlite3 no-runs.db "PRAGMA page_size = 512; VACUUM;"

# what the read commands refuse at open
cp perf-stat-counters.db damaged-runs-null-unit.db
damage damaged-runs-null-unit.db runs "unit          TEXT NOT NULL" "id = 1"
cp perf-stat-counters.db damaged-metrics-null-value.db
damage damaged-metrics-null-value.db metrics "value   REAL NOT NULL" \
	"run_id = 1 AND measure = 'value'"

# the folder's seeds replaced; libFuzzer's findings (SHA-1 names) kept
mkdir -p "$out"
rm -f "$out"/*.db
for f in *.db; do
	cp "$f" "$out/$f"
	echo "fixtures/fuzz/history/$f: $(wc -c <"$f") bytes, schema $(sqlite3 "$f" 'PRAGMA user_version')"
done
