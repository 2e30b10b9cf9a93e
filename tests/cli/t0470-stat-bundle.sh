#!/bin/sh
# A bundle's perf.stat.txt: its counters join the bundle's run in a direct
# bundle diff, land in the history's metrics table on ingest (not as a run
# of their own), and come back in compare's reports.
. "$(dirname "$0")/lib.sh"
D=$PD_ROOT/fixtures/demo
F=$PD_ROOT/fixtures/perfstat

mkb() { # DIR SHA PROFILE STAT
	mkdir -p "$1/profiles"
	printf '{"git_sha": "%s", "scenario": "demo", "cache": "warm"}' "$2" >"$1/build_meta.json"
	cp "$3" "$1/profiles/perf.script.txt.gz"
	[ -n "$4" ] && cp "$4" "$1/profiles/perf.stat.txt"
	return 0
}
mkb "$T/b1" aaaa111100 "$D/base.perf.txt.gz" "$F/base.stat.txt"
mkb "$T/b2" bbbb222200 "$D/cand.perf.txt.gz" "$F/cand.stat.txt"

# Direct: functions and counters in one report
expect_exit 1 pd "$T/b1" "$T/b2"
expect_grep "parse_record" "$T/out"
expect_grep 'table "perf stat"' "$T/out"
expect_grep "regressed .*IPC / insn per cycle" "$T/out"
pd -f json "$T/b1" "$T/b2" >"$T/direct.json" 2>/dev/null

# Ingest: one run per bundle; the counters in metrics, with their error
expect_exit 0 pd ingest --db "$T/h.db" "$T/b1" "$T/b2"
n=$(sqlite3 "$T/h.db" "SELECT count(*) FROM runs")
[ "$n" = 2 ] && ok || not_ok "runs: $n, want 2 (perf.stat.txt is not a run)"
v=$(sqlite3 "$T/h.db" "SELECT m.value FROM metrics m JOIN runs r ON r.id = m.run_id WHERE r.git_sha = 'aaaa111100' AND m.source = 'perf-stat:perf stat' AND m.key = 'cycles' || char(9) AND m.measure = 'value'")
[ "$v" = 4000000000.0 ] && ok || not_ok "stored cycles: '$v'"
e=$(sqlite3 "$T/h.db" "SELECT m.value FROM metrics m JOIN runs r ON r.id = m.run_id WHERE r.git_sha = 'aaaa111100' AND m.key = 'task-clock' || char(9) || 'msec' AND m.measure = 'value rse'")
[ "$e" = 0.005 ] && ok || not_ok "stored task-clock error: '$e'"
k=$(sqlite3 "$T/h.db" "SELECT count(*) FROM metrics")
# 7 rows a side (5 counters, IPC, elapsed), each with its error: 28
[ "$k" = 28 ] && ok || not_ok "metrics rows: $k, want 28"

# Compare from the history: the same counter verdicts as the direct diff
expect_exit 1 pd compare aaaa111 bbbb222 --scenario demo --db "$T/h.db"
expect_grep 'table "perf stat"' "$T/out"
expect_grep "regressed .*IPC / insn per cycle" "$T/out"
pd compare aaaa111 bbbb222 --scenario demo --db "$T/h.db" -f json >"$T/hist.json" 2>/dev/null
if python3 - "$T/direct.json" "$T/hist.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
def rows(d):
    t = [t for t in d["tables"] if t["name"] == "perf stat"][0]
    return {tuple(r["key"]): r["measures"]["value"] for r in t["rows"]}
ra, rb = rows(a), rows(b)
assert set(ra) == set(rb), (set(ra) ^ set(rb))
for k in ra:
    for f in ("baseline", "candidate", "status", "ratio"):
        assert ra[k][f] == rb[k][f] or abs(ra[k][f] - rb[k][f]) < 1e-9, (k, f, ra[k][f], rb[k][f])
assert b["verdict"] == "regressed"
PY
then ok; else not_ok "compare's counters = the direct diff's"; fi
pd compare aaaa111 bbbb222 --scenario demo --db "$T/h.db" -f md >"$T/hist.md" 2>/dev/null
expect_grep "perf stat" "$T/hist.md"
# check with two stored sides reads them as compare does: the counters
# join, and each side's provenance names its commit, runs and tool
pd check db:aaaa111:demo db:bbbb222:demo --db "$T/h.db" -f json >"$T/check.json" 2>/dev/null
if python3 - "$T/hist.json" "$T/check.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
def rows(d):
    t = [t for t in d["tables"] if t["name"] == "perf stat"][0]
    return {tuple(r["key"]): r["measures"]["value"]["status"] for r in t["rows"]}
assert rows(a) == rows(b)
for side in ("baseline", "candidate"):
    assert b[side]["provenance"] == a[side]["provenance"], (b[side], a[side])
    assert "from the history" in b[side]["provenance"], b[side]
PY
then ok; else not_ok "check with two stored sides = compare"; fi

# Re-ingest is idempotent: no duplicate metrics
expect_exit 0 pd ingest --db "$T/h.db" "$T/b1" "$T/b2"
k=$(sqlite3 "$T/h.db" "SELECT count(*) FROM metrics")
[ "$k" = 28 ] && ok || not_ok "metrics after re-ingest: $k"

# A bundle of counters only is a run of its own
mkdir -p "$T/s1/profiles" "$T/s2/profiles"
printf '{"git_sha": "cccc333300", "scenario": "demo", "cache": "warm"}' >"$T/s1/build_meta.json"
printf '{"git_sha": "dddd444400", "scenario": "demo", "cache": "warm"}' >"$T/s2/build_meta.json"
cp "$F/base.stat.csv" "$T/s1/profiles/perf.stat.txt"
cp "$F/cand.stat.csv" "$T/s2/profiles/perf.stat.txt"
expect_exit 1 pd "$T/s1" "$T/s2"
expect_grep "regressed .*cycles" "$T/out"
expect_exit 0 pd ingest --db "$T/c.db" "$T/s1" "$T/s2"
t=$(sqlite3 "$T/c.db" "SELECT group_concat(tool) FROM runs")
[ "$t" = "perf-stat,perf-stat" ] && ok || not_ok "counter-only runs: tools '$t'"
expect_exit 1 pd compare cccc333 dddd444 --scenario demo --db "$T/c.db"
expect_grep "regressed .*IPC / insn per cycle" "$T/out"

echo "stat bundles: $pass passed, $failed failed"
[ "$failed" -eq 0 ]
