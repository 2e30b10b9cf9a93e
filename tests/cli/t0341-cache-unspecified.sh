#!/bin/sh
# Bundles that record no cache state (docs/history.md, "Cache states"): a
# runbook's build_meta.json without a cache field, no warm/cold token in
# any name and no --cache is stored as "unspecified", which runs, compare,
# check, trend and site show and select like warm and cold; --cache still
# sets the state; a single profile without --cache is unspecified too; and
# two such bundle folders diff directly.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 not installed: skipped"; exit 77; }
# Outside any repository: the shas are stored as given.
cd "$T" || exit 1
history_db u
B=$T/bundles
s1=a1b2c3d4e5f60718293a4b5c6d7e8f9012345678
s2=b2c3d4e5f60718293a4b5c6d7e8f901234567890
s3=c3d4e5f60718293a4b5c6d7e8f90123456789ab
runbook_bundle "$B/2026-01-03-a1b2c3d-mft_small" $s1 mft_small 3
runbook_bundle "$B/2026-01-05-b2c3d4e-mft_small" $s2 mft_small 5
grep -q cache "$B"/*/build_meta.json && not_ok "the runbook's build_meta.json has a cache field"

# Accepted, both profiles of each bundle, under the state "unspecified".
expect_exit 0 pd ingest "$B/2026-01-03-a1b2c3d-mft_small" "$B/2026-01-05-b2c3d4e-mft_small"
expect_grep "a1b2c3d-mft_small: 2 runs" "$T/out"
expect_grep "b2c3d4e-mft_small: 2 runs" "$T/out"
[ "$(history_sql "SELECT cache || ' ' || count(*) FROM runs GROUP BY cache")" = "unspecified 4" ] &&
	ok || not_ok "cache states stored: $(history_sql 'SELECT cache, tool FROM runs')"
[ "$(history_sql "SELECT tool FROM runs WHERE git_sha = '$s1' ORDER BY tool" | tr '\n' ' ')" = "perfview samply " ] &&
	ok || not_ok "tools: $(history_sql 'SELECT tool FROM runs')"

# runs shows it and selects by it.
expect_exit 0 pd runs
expect_grep "a1b2c3d4e5f6 *mft_small *unspecified *perfview" "$T/out"
expect_exit 0 pd runs --cache unspecified
expect_lines 5 "$T/out"

# compare: the state is settled (the only one) or given, and shown.
expect_exit 0 pd compare a1b2c3d b2c3d4e --scenario mft_small --tool perfview
expect_grep "cache unspecified; 1 perfview run from the history" "$T/out"
expect_exit 0 pd compare a1b2c3d b2c3d4e --scenario mft_small --tool samply --cache unspecified -f json
if python3 - "$T/out" <<'PY'; then ok; else not_ok "compare JSON of unspecified runs"; fi
import json, sys
d = json.load(open(sys.argv[1]))
assert d["baseline"]["runs"] == 1 and d["candidate"]["runs"] == 1, d["baseline"]
assert "cache unspecified" in d["baseline"]["provenance"], d["baseline"]
PY
# (too few samples to tell: check says skip, 125)
expect_exit 125 pd check "db:a1b2c3d:mft_small" "db:b2c3d4e:mft_small:unspecified" --tool perfview
expect_grep "scenario mft_small, cache unspecified" "$T/out"

# trend and site: the series is mft_small/unspecified.
expect_exit 0 pd trend --scenario mft_small --tool samply -f json
if python3 - "$T/out" <<'PY'; then ok; else not_ok "trend of unspecified runs"; fi
import json, sys
d = json.load(open(sys.argv[1]))
assert d["cache"] == "unspecified" and d["tool"] == "samply", (d["cache"], d["tool"])
assert len(d["commits"]) == 2
PY
expect_exit 0 pd site "$T/site"
expect_grep "unspecified" "$T/site/index.html"
# (the underscore is written _5f in file names)
[ -f "$T/site/s/mft_5fsmall--unspecified--perfview.html" ] && ok || not_ok "no series page: $(ls "$T/site/s")"

# --cache still sets the state; build_meta.json's own field wins over it.
runbook_bundle "$B/2026-01-07-c3d4e5f-mft_small" $s3 mft_small 7
expect_exit 0 pd ingest --cache cold "$B/2026-01-07-c3d4e5f-mft_small"
[ "$(history_sql "SELECT DISTINCT cache FROM runs WHERE git_sha = '$s3'")" = cold ] && ok ||
	not_ok "--cache cold not stored: $(history_sql "SELECT cache FROM runs WHERE git_sha = '$s3'")"
sed 's/"scenario"/"cache": "Unspecified", "scenario"/' "$B/2026-01-07-c3d4e5f-mft_small/build_meta.json" >"$T/m"
mkdir -p "$T/other/profiles"
mv "$T/m" "$T/other/build_meta.json"
printf 'main;parse 17\nmain;hash 5\n' >"$T/other/profiles/perf.folded"
expect_exit 0 pd ingest --cache warm "$T/other"
[ "$(history_sql "SELECT cache FROM runs WHERE source = 'perf.folded'")" = unspecified ] && ok ||
	not_ok "build_meta.json's cache field: $(history_sql "SELECT cache FROM runs WHERE source = 'perf.folded'")"
# A single profile needs no --cache either.
printf 'main;parse 23\nmain;hash 5\n' >"$T/one.folded"
expect_exit 0 pd ingest --sha $s1 --scenario single "$T/one.folded"
[ "$(history_sql "SELECT cache FROM runs WHERE scenario = 'single'")" = unspecified ] && ok ||
	not_ok "single profile without --cache"
# Values that are no state are still refused, naming the three.
expect_exit 2 pd ingest --cache hot "$T/one.folded"
expect_grep "cache hot: a cache state is warm, cold or unspecified" "$T/err"

# Two bundle folders without a cache state diff directly.
expect_exit 0 pd "$B/2026-01-03-a1b2c3d-mft_small" "$B/2026-01-05-b2c3d4e-mft_small"
expect_grep "commit $s1, scenario mft_small" "$T/out"
finish
