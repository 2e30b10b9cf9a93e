#!/bin/sh
# Bundles with several tools and cache states (docs/cli.md, "Bundles"): a
# bundle diff compares each (cache, tool) series present on both sides on
# its own, never warm with cold or one tool with another; says what one
# side lacks; --cache and --tool choose; the exit status is the worst.
. "$PD_ROOT/tests/cli/lib.sh"

# The demo pair: parse_record does 40 % more work in the candidate. Each
# bundle holds it as perf script text (warm and cold runs) and as
# speedscope written by PerfView (by its file name). Counts by hand (self
# samples, all of one period): parse_record 8699 -> 11708, hash_key 3014
# -> 3146, sort_bucket 99 -> 95, checksum 49 -> 34 (11879 and 15015
# samples in all). parse_record is judged beyond the shift the other three
# show together: their log ratios ln((b + .5) / (a + .5)) +0.0429,
# -0.0410, -0.3610, weighed by 1 / (1.5 (1/(a+.5) + 1/(b+.5)) + 2 x 0.02^2)
# = 563.6, 31.7, 13.4, average +0.0296 (+3.0 %); ln(11708.5 / 8699.5) =
# 0.2970, less 0.0296, is 0.2674: +30.7 %.
for side in base cand; do
	mkdir -p "$T/$side/profiles"
	gzip -dc "$PD_ROOT/fixtures/demo/$side.perf.txt.gz" >"$T/$side/profiles/perf-warm.perf.txt"
	cp "$T/$side/profiles/perf-warm.perf.txt" "$T/$side/profiles/perf-cold.perf.txt"
	pd convert "$T/$side/profiles/perf-warm.perf.txt" \
		-o "$T/$side/profiles/perfview-warm.speedscope.json" ||
		not_ok "convert $side"
done
printf '{"git_sha": "%s", "scenario": "demo", "commit_date": "%s", "rustc_version": "%s"}\n' \
	1111111 2026-01-01T10:00:00Z 1.80 >"$T/base/build_meta.json"
printf '{"git_sha": "%s", "scenario": "demo", "commit_date": "%s", "rustc_version": "%s"}\n' \
	2222222 2026-01-02T10:00:00Z 1.80 >"$T/cand/build_meta.json"

# Three series, each compared on its own and each regressed.
expect_exit 1 pd "$T/base" "$T/cand"
expect_grep "^3 series compared (cache, tool): cold perf regressed, warm perf regressed, warm perfview regressed$" "$T/out"
expect_grep "^== 1 of 3: cache cold, tool perf ==$" "$T/out"
expect_grep "^== 2 of 3: cache warm, tool perf ==$" "$T/out"
expect_grep "^== 3 of 3: cache warm, tool perfview ==$" "$T/out"
expect_grep "commit 2222222, scenario demo, cache cold, tool perf; 1 run: profiles/perf-cold.perf.txt" "$T/out"
expect_grep "commit 2222222, scenario demo, cache warm, tool perfview; 1 run: profiles/perfview-warm.speedscope.json" "$T/out"
# one run a side in every series: never warm and cold pooled as repeats
expect_no_grep "cache warm and cold" "$T/out"
expect_no_grep "runs:" "$T/out"
n=$(grep -c '^regressed    self    +30.7 %.*parse_record' "$T/out")
[ "$n" -eq 3 ] && ok || not_ok "parse_record regressed in $n of 3 series"

# JSON: one report per series, and the worst verdict.
expect_exit 1 pd "$T/base" "$T/cand" -f json
python3 - "$T/out" <<'EOF' && ok || not_ok "json sections"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verdict"] == "regressed", d["verdict"]
assert d["not_compared"] is None
got = [(s["cache"], s["tool"], s["report"]["verdict"]) for s in d["series"]]
assert got == [("cold", "perf", "regressed"), ("warm", "perf", "regressed"),
               ("warm", "perfview", "regressed")], got
EOF

# Markdown: a heading per series.
expect_exit 1 pd "$T/base" "$T/cand" -f md
expect_grep "^### cold, perf$" "$T/out"

# --cache and --tool choose one series: the usual one-comparison report.
expect_exit 1 pd "$T/base" "$T/cand" --cache warm --tool perfview
expect_no_grep "series compared" "$T/out"
expect_grep "commit 1111111, scenario demo, cache warm, tool perfview; 1 run" "$T/out"
expect_exit 1 pd "$T/base" "$T/cand" --cache cold
expect_grep "cache cold, tool perf; 1 run" "$T/out"
# and they are checked: a misspelled tool gets the list and a guess
expect_exit 2 pd "$T/base" "$T/cand" --tool perfveiw
expect_grep "error: --tool perfveiw: no run of the bundles has it (they have perf, perfview); did you mean perfview?" "$T/err"
expect_exit 2 pd "$T/base" "$T/cand" --cache hot
expect_grep "error: --cache hot: no run of the bundles has it (they have cold, warm)" "$T/err"
expect_exit 2 pd "$T/base/profiles/perf-warm.perf.txt" "$T/cand/profiles/perf-warm.perf.txt" --tool perf
expect_grep "these are profile files" "$T/err"

# HTML and XLSX show one comparison: asked for several, they say how to choose.
expect_exit 2 pd "$T/base" "$T/cand" -f html -o "$T/r.html"
expect_grep "the bundles hold 3 series (cold perf, warm perf, warm perfview): -f html shows one; choose it with --cache and --tool" "$T/err"
[ ! -e "$T/r.html" ] && ok || not_ok "html written though refused"
expect_exit 1 pd "$T/base" "$T/cand" -f html -o "$T/r.html" --cache warm --tool perf
[ -s "$T/r.html" ] && ok || not_ok "html of one series"

# What one side lacks is said, not dropped; the rest is still compared.
rm "$T/base/profiles/perf-cold.perf.txt"
expect_exit 1 pd "$T/base" "$T/cand"
expect_grep "^2 series compared (cache, tool): warm perf regressed, warm perfview regressed; not compared, one side has no such runs: cold perf: baseline 0 runs, candidate 1 run$" "$T/out"
# no series in common is an error naming what each side has
expect_exit 2 pd "$T/base" "$T/cand" --cache cold
expect_grep "the sides share no cache state and tool as selected: baseline warm perf (1 run), warm perfview (1 run); candidate cold perf (1 run), warm perf (1 run), warm perfview (1 run)" "$T/err"
cp "$T/base/profiles/perf-warm.perf.txt" "$T/base/profiles/perf-cold.perf.txt"

# Identical bundles: no regression in any series (and at 11879 samples
# a run, no proof of sameness within 5 % either).
expect_exit 0 pd "$T/base" "$T/base"
expect_grep "^3 series compared (cache, tool): cold perf inconclusive, warm perf inconclusive, warm perfview inconclusive$" "$T/out"

# check (for git bisect run) takes the worst series too.
expect_exit 1 pd check "$T/base" "$T/cand" --function parse_record
expect_exit 125 pd check "$T/base" "$T/base" --function parse_record
expect_exit 0 pd check "$T/base" "$T/base" --function parse_record --threshold 40

# peek shows one series: it asks for the choice, then shows it.
expect_exit 2 pd peek parse_record "$T/base" "$T/cand"
expect_grep "peek shows one; choose it with --cache and --tool" "$T/err"
expect_exit 0 pd peek parse_record "$T/base" "$T/cand" --cache warm --tool perf
expect_grep "parse_record" "$T/out"

# A plain file against a bundle goes with each of the bundle's series.
expect_exit 1 pd "$T/base/profiles/perf-warm.perf.txt" "$T/cand" --tool perf
expect_grep "^2 series compared (cache, tool): cold perf regressed, warm perf regressed$" "$T/out"

# Build differences come first, and a baseline newer than its candidate
# is called out.
printf '{"git_sha": "%s", "scenario": "other", "commit_date": "%s", "rustc": "%s"}\n' \
	2222222 2026-01-03T10:00:00Z 1.81 >"$T/cand/build_meta.json"
expect_exit 0 pd "$T/cand" "$T/base" --cache warm --tool perf
head -n 3 "$T/err" >"$T/head"
expect_grep "warning: scenarios differ: baseline other, candidate demo" "$T/head"
expect_grep "warning: compilers differ: baseline 1.81, candidate 1.80" "$T/head"
expect_grep "warning: the baseline's commit (2026-01-03T10:00:00Z) is newer than the candidate's (2026-01-01T10:00:00Z): are the sides reversed?" "$T/head"

# A stored commit against a bundle: the bundle's runs of the stored series.
history_db series
printf '{"git_sha": "%s", "scenario": "demo", "commit_date": "%s"}\n' \
	1111111 2026-01-01T10:00:00Z >"$T/base/build_meta.json"
expect_exit 0 pd ingest "$T/base"
printf '{"git_sha": "%s", "scenario": "demo", "commit_date": "%s"}\n' \
	2222222 2026-01-02T10:00:00Z >"$T/cand/build_meta.json"
expect_exit 1 pd check db:1111111:demo:cold "$T/cand" --tool perf
expect_grep "cache cold, tool perf; 1 run: profiles/perf-cold.perf.txt" "$T/out"
expect_exit 1 pd check db:1111111:demo:warm "$T/cand" --tool perfview
expect_grep "cache warm, tool perfview; 1 run: profiles/perfview-warm.speedscope.json" "$T/out"

# Cold worse, warm the same: the candidate's warm runs are the baseline's
# recording, its cold runs the regressed one. The first lines say the cold
# cache alone regressed, and which function (parse_record +30.7 %, as
# counted above); a function that regressed warm too is no cold-only one.
for side in cb cc; do
	mkdir -p "$T/$side/profiles"
done
sed 's/2222222/1111111/' "$T/cand/build_meta.json" >"$T/cb/build_meta.json"
sed 's/2222222/3333333/' "$T/cand/build_meta.json" >"$T/cc/build_meta.json"
gzip -dc "$PD_ROOT/fixtures/demo/base.perf.txt.gz" >"$T/cb/profiles/perf-warm.perf.txt"
cp "$T/cb/profiles/perf-warm.perf.txt" "$T/cb/profiles/perf-cold.perf.txt"
cp "$T/cb/profiles/perf-warm.perf.txt" "$T/cc/profiles/perf-warm.perf.txt"
gzip -dc "$PD_ROOT/fixtures/demo/cand.perf.txt.gz" >"$T/cc/profiles/perf-cold.perf.txt"
expect_exit 1 pd "$T/cb" "$T/cc"
expect_grep "^2 series compared (cache, tool): cold perf regressed, warm perf inconclusive$" "$T/out"
expect_grep "^cold cache only (regressed cold, warm held): parse_record +30.7 % (perf)$" "$T/out"
expect_exit 1 pd -f json "$T/cb" "$T/cc"
python3 - "$T/out" <<'EOF' && ok || not_ok "cold_only in JSON"
import json, sys
d = json.load(open(sys.argv[1]))
c = d["cold_only"]
assert [(x["tool"], x["function"]) for x in c] == [("perf", "parse_record")], c
assert abs(c[0]["delta_pct"] - 30.7) < 0.05, c
EOF
# the pull request's comment says it too, under its first line
expect_exit 1 pd -f md "$T/cb" "$T/cc"
expect_grep "^Cold cache only (regressed cold, warm held): <code>parse&#95;record</code> <sub>workload</sub> +30.7 % (perf)$" "$T/out"
# both caches regressed: nothing is the cold cache's alone
expect_exit 1 pd "$T/base" "$T/cand" --tool perf
expect_no_grep "cold cache only" "$T/out"
expect_exit 1 pd -f md "$T/base" "$T/cand" --tool perf
expect_no_grep "Cold cache only" "$T/out"

finish
