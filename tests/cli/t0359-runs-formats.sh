#!/bin/sh
# perfdiff runs -f json and -f tsv, for scripts: every run with its key,
# unit, samples, total and sample rate. Expected values by hand: the
# folded runs count 40 and 41 samples (unit samples, no rate); the
# speedscope run 300 samples of 1 ms (a rate of 1000 a second). A
# scenario with a tab, a backslash and a newline is written escaped in
# tsv and comes back whole through printf '%b'; json is valid.
. "$(dirname "$0")/lib.sh"
history_db h
tail=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
odd='a	b\c
d'
mkdir -p "$T/b1/profiles" "$T/b2/profiles"
printf '{"git_sha": "01%s", "scenario": "plain", "cache": "warm"}\n' "$tail" >"$T/b1/build_meta.json"
printf 'main;parse 30\nmain 10\n' >"$T/b1/profiles/run.1.folded"
printf 'main;parse 31\nmain 10\n' >"$T/b1/profiles/run.2.folded"
python3 - "$T/b2/build_meta.json" "$odd" "$tail" <<'PY'
import json, sys
json.dump({"git_sha": "02" + sys.argv[3], "scenario": sys.argv[2], "cache": "cold"},
          open(sys.argv[1], "w"))
PY
printf 'main;parse 200\nmain 100\n' >"$T/s.folded"
python3 "$PD_ROOT/tests/tools/folded_make.py" speedscope "$T/s.folded" \
	"$T/b2/profiles/run.perfview.speedscope.json"
expect_exit 0 pd ingest "$T/b1" "$T/b2"

expect_exit 0 pd runs -f json
cp "$T/out" "$T/runs.json"
if python3 - "$T/runs.json" "$odd" "$tail" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == 1, d
runs = {(r["scenario"], r["repeat"]): r for r in d["runs"]}
assert len(runs) == 3, runs
a, b = runs[("plain", 1)], runs[("plain", 2)]
assert (a["samples"], b["samples"]) == (40, 41), (a, b)
assert a["unit"] == "samples" and a["sample_rate_hz"] is None, a
assert a["cache"] == "warm" and a["tool"] == "folded" and a["sha"] == "01" + sys.argv[3], a
s = runs[(sys.argv[2], 1)]
assert s["cache"] == "cold" and s["tool"] == "perfview" and s["unit"] == "ns", s
assert s["samples"] == 300 and s["total"] == 300e6, s
assert s["sample_rate_hz"] == 1000, s
PY
then ok; else not_ok "runs -f json: $(head -c 600 "$T/runs.json")"; fi

expect_exit 0 pd runs -f tsv
expect_lines 3 "$T/out"
# 13 fields a line, whatever the names hold
n=$(awk -F '	' 'NF != 13' "$T/out" | wc -l)
[ "$n" -eq 0 ] && ok || not_ok "tsv lines of other than 13 fields: $(cat "$T/out")"
line=$(grep '	cold	' "$T/out")
expect_grep '	ns	300	300000000	1000	' "$T/out"
got=$(printf '%s' "$line" | cut -f3)
[ "$got" = 'a\tb\\c\nd' ] && ok || not_ok "escaped scenario: $got"
back=$(printf '%b' "$got")
[ "$back" = "$odd" ] && ok || not_ok "scenario read back: $back"
expect_exit 0 pd runs -f tsv --scenario "$odd" --cache cold
expect_lines 1 "$T/out"
expect_exit 2 pd runs -f yaml
expect_grep "runs writes text, json or tsv" "$T/err"
expect_exit 2 pd ingest -f json "$T/b1"
finish
