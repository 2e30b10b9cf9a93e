#!/bin/sh
# Ingesting a bundle again (docs/history.md, "Ingest"): a profile is the
# run its bytes were stored as. Its build_meta.json edited, the runs take
# the new metadata (said on stderr) and stay as many; unchanged, nothing
# is written; a cache state given later moves them; another sha or
# scenario is refused without --rekey, and moved with it (also from a
# renamed folder); a copy of a bundle in another folder is not stored
# again, but the same bytes under another commit are a run of their own;
# a profile or counters added later are stored alone; two identical files
# are two runs; a history from before schema 5 gets its files' hashes
# without storing anything twice, edited or not; db copy keeps them.
# Counts are of the profiles each bundle holds, by hand.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 not installed: skipped"; exit 77; }
cd "$T" || exit 1
history_db r
B=$T/bundles
s1=a1b2c3d4e5f60718293a4b5c6d7e8f9012345678
s2=b2c3d4e5f60718293a4b5c6d7e8f901234567890
s3=c3d4e5f60718293a4b5c6d7e8f90123456789ab
s4=d4e5f60718293a4b5c6d7e8f90123456789abcd
A=$B/2026-01-03-a1b2c3d-mft_small
runbook_bundle "$A" $s1 mft_small 3
nruns() { history_sql 'SELECT count(*) FROM runs'; }
runs_of() { history_sql "SELECT count(*) FROM runs WHERE git_sha = '$1' AND scenario = '$2' AND cache = '$3'"; }
# edit FILE SED: the file edited in place
edit() { sed "$2" "$1" >"$T/edit" && cat "$T/edit" >"$1"; }

# ---- Metadata edited: the same runs, the new build_meta.json ----
expect_exit 0 pd ingest "$A"
expect_grep "mft_small: 2 runs" "$T/out"
expect_exit 0 pd ingest "$A"
expect_grep "mft_small: already stored, skipped" "$T/err"
expect_lines 1 "$T/err"
edit "$A/build_meta.json" 's/rustc 1.79.0/rustc 1.80.1/'
expect_exit 0 pd ingest "$A"
expect_grep "^perfdiff: updated build_meta.json of bundle $A (2 runs)$" "$T/err"
expect_lines 1 "$T/err"
expect_lines 0 "$T/out"
expect_exit 0 pd runs
expect_lines 3 "$T/out" # the header and the same two runs
expect_exit 0 pd runs -v
expect_grep "build_meta.json .*rustc 1.80.1" "$T/out"
expect_no_grep "1.79.0" "$T/out"
expect_grep "from .*2026-01-03-a1b2c3d-mft_small: perfview.speedscope.json" "$T/out"
[ "$(history_sql "SELECT count(*) FROM runs WHERE build_meta LIKE '%1.80.1%'")" = 2 ] && ok || not_ok "build_meta.json not updated"
expect_exit 0 pd ingest "$A"
expect_grep "already stored, skipped" "$T/err"
[ "$(nruns) $(history_sql 'SELECT count(*) FROM bundles')" = "2 1" ] && ok || not_ok "runs and bundles: $(nruns)"

# ---- A cache state given later moves the runs to it ----
edit "$A/build_meta.json" 's/"scenario"/"cache": "warm", "scenario"/'
expect_exit 0 pd ingest "$A"
expect_grep "^perfdiff: moved 2 runs of bundle $A from a1b2c3d4e5f6 mft_small/unspecified to a1b2c3d4e5f6 mft_small/warm$" "$T/err"
expect_grep "updated build_meta.json of bundle $A (2 runs)" "$T/err"
[ "$(runs_of $s1 mft_small warm) $(nruns)" = "2 2" ] && ok || not_ok "cache not moved: $(history_sql 'SELECT cache FROM runs')"

# ---- Another scenario or sha from the same folder: refused, or --rekey ----
C=$B/2026-01-05-c3d4e5f-mft_small
runbook_bundle "$C" $s3 mft_smal 5
expect_exit 0 pd ingest "$C"
history_sql 'SELECT * FROM runs ORDER BY id' >"$T/before"
edit "$C/build_meta.json" 's/"mft_smal"/"mft_small"/'
expect_exit 2 pd ingest "$C"
expect_grep "^perfdiff: $C: perfview.speedscope.json is stored already from this folder as c3d4e5f60718 mft_smal, and now it says c3d4e5f60718 mft_small: pass --rekey to move its runs there" "$T/err"
expect_lines 1 "$T/err"
history_sql 'SELECT * FROM runs ORDER BY id' >"$T/after"
cmp -s "$T/before" "$T/after" && ok || not_ok "a refused bundle changed the runs"
expect_exit 0 pd ingest --rekey "$C"
expect_grep "moved 2 runs of bundle $C from c3d4e5f60718 mft_smal/unspecified to c3d4e5f60718 mft_small/unspecified" "$T/err"
[ "$(runs_of $s3 mft_small unspecified) $(runs_of $s3 mft_smal unspecified) $(nruns)" = "2 0 4" ] && ok ||
	not_ok "scenario not moved: $(history_sql 'SELECT scenario FROM runs')"
# The folder renamed and its sha fixed: the runs of the folder that is
# gone move with --rekey, and the bundle is where it is now.
C2=$B/2026-01-05-d4e5f60-mft_small
mv "$C" "$C2"
edit "$C2/build_meta.json" "s/$s3/$s4/"
expect_exit 0 pd ingest --rekey "$C2"
expect_grep "note: $C2: stored before from .*2026-01-05-c3d4e5f-mft_small, which is no longer there" "$T/err"
expect_grep "moved 2 runs of bundle $C2 from c3d4e5f60718 mft_small/unspecified to d4e5f6071829 mft_small/unspecified" "$T/err"
[ "$(runs_of $s4 mft_small unspecified) $(nruns)" = "2 4" ] && ok || not_ok "sha not moved"
[ "$(history_sql "SELECT count(*) FROM bundles WHERE path LIKE '%d4e5f60-mft_small'")" = 1 ] && ok ||
	not_ok "bundle path: $(history_sql 'SELECT path FROM bundles')"
expect_exit 0 pd ingest "$C2"
expect_grep "already stored, skipped" "$T/err"

# A short sha from the folder name, then the full one in build_meta.json:
# one commit, merged, not another key.
P=$B/2026-01-11-e5f6071-pre
mkdir -p "$P/profiles"
printf 'main;parse 61\nmain;hash 3\n' >"$P/profiles/perf.folded"
expect_exit 0 pd ingest --cache warm "$P"
printf '{"git_sha": "e5f6071%s", "scenario": "pre", "cache": "warm"}' "${s4#d4e5f60}" >"$P/build_meta.json"
expect_exit 0 pd ingest "$P"
expect_grep "stored runs of e5f6071 are now under e5f6071${s4#d4e5f60}, the same commit" "$T/err"
expect_grep "updated build_meta.json of bundle $P (1 run)" "$T/err"
[ "$(history_sql "SELECT count(*) || ' ' || min(git_sha) FROM runs WHERE scenario = 'pre'")" = "1 e5f6071${s4#d4e5f60}" ] &&
	ok || not_ok "prefix run: $(history_sql "SELECT git_sha FROM runs WHERE scenario = 'pre'")"

# ---- Copies: the same key is not stored again; another commit is a run ----
cp -R "$A" "$B/copy"
n=$(nruns)
expect_exit 0 pd ingest "$B/copy"
expect_grep "note: $B/copy: 2 of its profiles are stored already from another folder under the same key: not stored again" "$T/err"
[ "$(nruns)" = "$n" ] && ok || not_ok "a copy stored twice"
# (a deterministic profiler writes the same bytes for commits that did not
# change the program)
cp -R "$A" "$B/det"
edit "$B/det/build_meta.json" "s/$s1/$s2/"
expect_exit 0 pd ingest "$B/det"
expect_grep "det: 2 runs" "$T/out"
[ "$(runs_of $s2 mft_small warm) $(runs_of $s1 mft_small warm)" = "2 2" ] && ok || not_ok "the same bytes for another commit"

# ---- Added later: a profile, counters; identical files ----
printf 'main;parse 41\nmain;hash 7\n' >"$A/profiles/extra.folded"
expect_exit 0 pd ingest "$A"
expect_grep "mft_small: 1 run," "$T/out"
expect_grep "note: $A: 2 profiles stored already, not stored again" "$T/err"
[ "$(runs_of $s1 mft_small warm)" = 3 ] && ok || not_ok "added profile"
cp "$PD_ROOT/fixtures/perfstat/base.stat.txt" "$A/profiles/perf.stat.txt"
expect_exit 0 pd ingest "$A"
expect_grep "added the counters of $A/profiles/perf.stat.txt to its stored run" "$T/err"
# 7 counters, each with its error (t0470), on one run; no run of their own
[ "$(history_sql "SELECT count(*) || ' ' || count(DISTINCT run_id) FROM metrics") $(runs_of $s1 mft_small warm)" = "14 1 3" ] &&
	ok || not_ok "counters added: $(history_sql 'SELECT count(*), count(DISTINCT run_id) FROM metrics')"
expect_exit 0 pd ingest "$A"
expect_grep "already stored, skipped" "$T/err"
mkdir -p "$B/twins/profiles"
printf '{"git_sha": "%s", "scenario": "twins"}' $s1 >"$B/twins/build_meta.json"
printf 'main;parse 30\nmain;hash 6\n' >"$B/twins/profiles/run1.folded"
cp "$B/twins/profiles/run1.folded" "$B/twins/profiles/run2.folded"
expect_exit 0 pd ingest "$B/twins"
expect_grep "twins: 2 runs" "$T/out"
expect_exit 0 pd ingest "$B/twins"
expect_grep "already stored, skipped" "$T/err"

# ---- A single profile: --cache later moves it; another --sha needs --rekey ----
printf 'main;parse 55\nmain;hash 9\n' >"$T/one.folded"
expect_exit 0 pd ingest --sha $s1 --scenario single "$T/one.folded"
expect_exit 0 pd ingest --sha $s1 --scenario single --cache cold "$T/one.folded"
expect_grep "moved 1 run of bundle $T/one.folded from a1b2c3d4e5f6 single/unspecified to a1b2c3d4e5f6 single/cold" "$T/err"
expect_exit 2 pd ingest --sha $s2 --scenario single --cache cold "$T/one.folded"
expect_grep "pass --rekey" "$T/err"
expect_exit 0 pd ingest --rekey --sha $s2 --scenario single --cache cold "$T/one.folded"
[ "$(runs_of $s2 single cold) $(history_sql "SELECT count(*) FROM runs WHERE scenario = 'single'")" = "1 1" ] && ok ||
	not_ok "single profile moved"

# ---- db copy keeps the files' hashes ----
if [ -z "${PD_TEST_PG:-}" ]; then
	expect_exit 0 pd db copy "$PERFDIFF_DB" "$T/copied.db"
	expect_exit 0 pd ingest --db "$T/copied.db" "$A"
	expect_grep "already stored, skipped" "$T/err"
fi

# ---- A history from before schema 5: its runs have no file hashes ----
# legacy NAME: a history of bundle L as perfdiff before schema 5 stored it
# (bundle hash over build_meta.json and every file's path and bytes,
# computed here; no run_files table).
L=$B/2026-01-09-e5f6071-legacy
runbook_bundle "$L" 5$s4 legacy 9
legacy() {
	history_db "$1"
	pd ingest "$L" >/dev/null 2>&1 || not_ok "legacy ingest"
	v1=$(python3 - "$L" <<'PY'
import hashlib, os, sys
d = sys.argv[1]
h = hashlib.sha256()
h.update(b"build_meta.json\0" + open(d + "/build_meta.json", "rb").read())
files = []
for root, _, names in os.walk(d + "/profiles"):
    for n in names:
        p = os.path.join(root, n)
        files.append((os.path.relpath(p, d + "/profiles").encode(), p))
for rel, p in sorted(files):
    h.update(rel + b"\0" + open(p, "rb").read())
print(h.hexdigest())
PY
)
	case "$PERFDIFF_DB" in
	postgres*) undo="DELETE FROM perfdiff_schema WHERE version >= 5;" ;;
	*) undo="PRAGMA user_version = 4;" ;;
	esac
	history_sql "DROP TABLE alerts; DROP TABLE run_files; UPDATE runs SET bundle_hash = '$v1'; UPDATE bundles SET hash = '$v1'; $undo" >/dev/null
}
legacy legacy_same
expect_exit 0 pd ingest "$L"
expect_grep "already stored, skipped" "$T/err"
[ "$(nruns) $(history_sql 'SELECT count(*) FROM run_files')" = "2 2" ] && ok ||
	not_ok "legacy bundle: $(nruns) runs, $(history_sql 'SELECT count(*) FROM run_files') file hashes"
legacy legacy_edited
edit "$L/build_meta.json" 's/rustc 1.79.0/rustc 1.81.0/'
expect_exit 0 pd ingest "$L"
expect_grep "updated build_meta.json of bundle $L (2 runs)" "$T/err"
[ "$(nruns) $(history_sql "SELECT count(*) FROM runs WHERE build_meta LIKE '%1.81.0%'")" = "2 2" ] && ok ||
	not_ok "legacy bundle edited: $(nruns) runs"
expect_exit 0 pd ingest "$L"
expect_grep "already stored, skipped" "$T/err"
finish
