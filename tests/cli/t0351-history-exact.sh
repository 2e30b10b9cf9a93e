#!/bin/sh
# Stored runs of exact counts (docs/history.md, "Exact counts"): two
# bundles of fixtures/callgrind's recordings (parse_record's own work
# +20 % in the second), a callgrind and a cachegrind run each. compare
# and check judge the stored runs as diff judges the files: by the
# threshold alone, "exact" in every report, the same verdict, exit
# status and status of every function; the history keeps no column for
# it, the run's format says it. trend judges a series of such runs by the
# threshold alone too: nine commits of one run, the last four of the
# second build, make a change point at the sixth, where a permutation
# test would need 14 runs to see anything.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 not installed: skipped"; exit 77; }
cd "$T" || exit 1
history_db x
FX=$PD_ROOT/fixtures/callgrind
sa=a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0
sb=b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0
# bundle DIR SHA DAY FIXTURE
bundle() {
	mkdir -p "$1/profiles"
	printf '{"git_sha": "%s", "scenario": "cg", "cache": "warm", "commit_date": "2026-02-%02dT00:00:00Z"}\n' \
		"$2" "$3" >"$1/build_meta.json"
	gunzip -c "$FX/$4.callgrind.gz" >"$1/profiles/callgrind.warm.1.out"
	gunzip -c "$FX/$4.cachegrind.gz" >"$1/profiles/cachegrind.warm.1.out"
}
bundle "$T/a" $sa 1 base
bundle "$T/b" $sb 2 cand
expect_exit 0 pd ingest "$T/a" "$T/b"
[ "$(history_sql "SELECT DISTINCT format FROM runs ORDER BY 1" | tr '\n' ' ')" = "cachegrind callgrind " ] &&
	ok || not_ok "formats stored: $(history_sql 'SELECT tool, format FROM runs')"

# same TOOL DIRECT.json STORED.json: one verdict, both exact, every
# function with the same statuses and ratios
same() {
	if python3 - "$@" <<'PY'; then ok; else not_ok "$1: stored and direct differ"; fi
import json, sys
d, s = (json.load(open(p)) for p in sys.argv[2:])
assert d["dispersion"]["method"] == "exact", d["dispersion"]
assert s["dispersion"]["method"] == "exact", s["dispersion"]
assert d["verdict"] == s["verdict"] == "regressed", (d["verdict"], s["verdict"])
def rows(r):
    return {(f["function"], f["module"]): tuple(
        None if f[m] is None else (f[m]["status"], f[m]["ratio"], f[m]["p"])
        for m in ("self", "total")) for f in r["functions"]}
a, b = rows(d), rows(s)
assert a == b, [(k, a.get(k), b.get(k)) for k in set(a) | set(b) if a.get(k) != b.get(k)][:5]
assert a[("parse_record", "work" if sys.argv[1] == "callgrind" else "")][0] == \
    ("regressed", 3850000 / 3210000, None), a[("parse_record", "work")]
PY
}

for tool in callgrind cachegrind; do
	expect_exit 1 pd -f json "$T/a/profiles/$tool.warm.1.out" "$T/b/profiles/$tool.warm.1.out"
	cp "$T/out" "$T/direct.json"
	expect_exit 1 pd compare a0a0a0a b0b0b0b --scenario cg --tool $tool -f json
	cp "$T/out" "$T/stored.json"
	same $tool "$T/direct.json" "$T/stored.json"
	expect_exit 1 pd compare a0a0a0a b0b0b0b --scenario cg --tool $tool --color never
	expect_grep "regressed *self *+19.9 % *1.20 (exact) .*parse_record" "$T/out"
	expect_grep "exact counts (no sampling), judged by the threshold alone" "$T/out"
	expect_grep "^counts: baseline stored exact counts" "$T/out"
	expect_no_grep "quasi-Poisson\|cannot show a 5 % change" "$T/out"
	expect_no_grep "cannot show a 5 % change" "$T/err"
	# the threshold alone: 25 % lets +19.9 % through, as for the files
	expect_exit 0 pd "$T/a/profiles/$tool.warm.1.out" "$T/b/profiles/$tool.warm.1.out" --threshold 25
	expect_exit 0 pd compare a0a0a0a b0b0b0b --scenario cg --tool $tool --threshold 25
	# check, a stored baseline against the file and against stored runs
	expect_exit 1 pd check -f json "db:a0a0a0a:cg" "$T/b/profiles/$tool.warm.1.out" --tool $tool
	cp "$T/out" "$T/check.json"
	same $tool "$T/direct.json" "$T/check.json"
	expect_exit 1 pd check -f json "db:a0a0a0a:cg" "db:b0b0b0b:cg" --tool $tool
	cp "$T/out" "$T/check2.json"
	same $tool "$T/direct.json" "$T/check2.json"
done

history_db t
i=1
while [ $i -le 9 ]; do
	f=base
	[ $i -ge 6 ] && f=cand
	bundle "$T/t$i" "$(printf '%02d' $i)cccccccccccccccccccccccccccccccccccccc" $i $f
	i=$((i + 1))
done
expect_exit 0 pd ingest "$T"/t?
expect_exit 1 pd trend --scenario cg --tool callgrind --color never
expect_grep "exact counts: change points by the threshold alone" "$T/out"
expect_grep "^ALERT cg/warm: total +14.4 % at 06cccccccc, from parse_record \[work\] +19.9 %" "$T/out"
expect_no_grep "cannot detect change points" "$T/out"
expect_exit 1 pd trend --scenario cg --tool callgrind -f json
if python3 - "$T/out" <<'PY' 2>"$T/py"; then ok; else not_ok "trend JSON of exact counts: $(tail -2 "$T/py")"; fi
import json, sys
d = json.load(open(sys.argv[1]))
assert d["exact"] is True and d["too_short"] is None, d
by = {s["name"]: s for s in d["series"]}
for name, pct in (("total", 14.4), ("parse_record [work]", 19.9)):
    cps = by[name]["change_points"]
    assert [(c["index"], round(c["change_pct"], 1), c["p"]) for c in cps] == [(5, pct, 0)], cps
    assert by[name]["threshold_pct"] == 5 and not by[name]["threshold_learned"]
assert all(not s["change_points"] for n, s in by.items() if n not in ("total", "parse_record [work]"))
PY
# the threshold alone: at 25 % the +19.9 % is no change point
expect_exit 0 pd trend --scenario cg --tool callgrind --threshold 25 --color never
expect_grep "^parse_record \[work\].* +19.9 % *25.0% *-" "$T/out"
# the cachegrind runs: the same change point
expect_exit 1 pd trend --scenario cg --tool cachegrind --color never
expect_grep "^ALERT cg/warm: total +14.4 % at 06cccccccc" "$T/out"
# a counter stored with the runs (perf stat), +30 % from the sixth
# commit too, is measured: tested as ever, and 9 runs cannot show it
history_db c
i=1
while [ $i -le 9 ]; do
	rm -f "$T/t$i/profiles/cachegrind.warm.1.out"
	tc=100
	[ $i -ge 6 ] && tc=130
	printf ' Performance counter stats for %s:\n\n  %d.00 msec task-clock   #    0.998 CPUs utilized\n' \
		"'./work'" $tc >"$T/t$i/profiles/perf.stat.txt"
	i=$((i + 1))
done
expect_exit 0 pd ingest "$T"/t?
expect_exit 1 pd trend --scenario cg --tool callgrind -f json
if python3 - "$T/out" <<'PY' 2>"$T/py"; then ok; else not_ok "a counter beside exact runs: $(tail -2 "$T/py")"; fi
import json, sys
d = json.load(open(sys.argv[1]))
by = {s["name"]: s for s in d["series"]}
assert d["exact"] and by["total"]["change_points"], by["total"]
c = [s for s in d["series"] if s["kind"] == "counter"]
assert [s["name"] for s in c] == ["task-clock / msec"] and not c[0]["change_points"], c
PY
# the newest commits: a step that has not held for 3 commits yet waits
history_db p
expect_exit 0 pd ingest "$T"/t[1-7]
expect_exit 0 pd trend --scenario cg --tool callgrind --color never
expect_no_grep "^ALERT" "$T/out"
expect_grep "WATCH parse_record \[work\] +19.9 % from 06cccccccc (2 of 3 commits" "$T/out"
finish
