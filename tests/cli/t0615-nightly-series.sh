#!/bin/sh
# scripts/nightly.sh on a history of several series: ten commits of two
# scenarios, each bundle in the runbook form with warm and cold runs of
# two tools (a PerfView speedscope export and a samply profile, made by
# tests/tools/folded_make.py from the same folded stacks), three runs
# each. Planted by hand: in scan, parse 1000 -> 1300 samples (+30 %) from
# commit 6, warm and cold; in load, read 2600 -> 3640 (+40 %) from commit
# 4, cold runs only. So six series alert (scan x 2 caches x 2 tools, load
# cold x 2 tools) and two do not. Checked: one call runs all eight
# series, keeps every series' reports and alert state, says one line per
# series and one per change (naming the series that saw it), exits 1 then
# 0; the history holds each change as one alert group naming its series;
# run per cache state, the cold run alerts on its own and leaves the
# warm reports alone, unless the change was marked expected in between;
# a state file of the one-series job carries over; the site lists each
# change once.
. "$(dirname "$0")/lib.sh"
history_db h
tail=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
nightly() {
	env PERFDIFF="$PERFDIFF" sh "$PD_ROOT/scripts/nightly.sh" --db "$PERFDIFF_DB" "$@"
}
: >"$T/pairs"
for c in 1 2 3 4 5 6 7 8 9 10; do
	for s in scan load; do
		day=2026-04-$(printf %02d "$c")
		b=$T/bundles/$day-$(printf %02d "$c")$tail-$s
		mkdir -p "$b/profiles"
		# the runbook's fields: sha, compiler, flags, target, dataset
		printf '{"git_sha": "%02d%s", "scenario": "%s", "commit_date": "%sT00:00:00Z", "rustc_version": "rustc 1.80.0", "flags": "-C opt-level=3", "target": "x86_64-pc-windows-msvc", "dataset_hash": "sha256:5f1e%s"}\n' \
			"$c" "$tail" "$s" "$day" "$s" >"$b/build_meta.json"
		for cache in warm cold; do
			for r in 1 2 3; do
				# a few samples of noise that cancel within a commit
				j=$(( (r - 2) * (1 + c % 3) ))
				p=1000 rd=2000
				[ "$s" = scan ] && [ "$c" -ge 6 ] && p=1300
				[ "$cache" = cold ] && rd=2600
				[ "$s" = load ] && [ "$cache" = cold ] && [ "$c" -ge 4 ] && rd=3640
				f=$T/f-$c-$s-$cache-$r.folded
				printf 'main;parse %d\nmain;read %d\nmain;other %d\n' \
					$((p + j)) $((rd - j)) $((500 + j)) >"$f"
				n=$b/profiles/${day}_$(printf %02d "$c")aaaaa_${s}_${cache}_$r
				echo "$f $n.perfview.speedscope.json" >>"$T/pairs"
				echo "$f $n.samply.json" >>"$T/pairs"
			done
		done
	done
done
# shellcheck disable=SC2046
python3 "$PD_ROOT/tests/tools/folded_make.py" speedscope $(grep speedscope "$T/pairs") &&
	python3 "$PD_ROOT/tests/tools/folded_make.py" firefox $(grep samply "$T/pairs") ||
	{ not_ok "profiles not made"; finish; exit 1; }

# The bundles of the last good and the first bad commit, diffed: each
# cache state and tool compared on its own (three runs a side each, never
# warm with cold), and the planted change found in every one.
good=$T/bundles/2026-04-05-05$tail-scan bad=$T/bundles/2026-04-06-06$tail-scan
expect_exit 1 pd "$good" "$bad"
expect_grep "^4 series compared (cache, tool): cold perfview regressed, cold samply regressed, warm perfview regressed, warm samply regressed$" "$T/out"
n=$(grep -c "^regressed    self .*parse$" "$T/out")
[ "$n" -eq 4 ] && ok || not_ok "parse regressed in $n of 4 series"
expect_grep "cache cold, tool samply; 3 runs" "$T/out"
expect_no_grep "warm and cold" "$T/out"
expect_exit 0 pd "$good" "$T/bundles/2026-04-04-04$tail-scan" --cache warm --tool samply
expect_no_grep "series compared" "$T/out"

# One call: every series, from the bundles it ingests.
expect_exit 1 nightly --out "$T/night" --site "$T/site" "$T"/bundles/*
cp "$T/out" "$T/first.out"
for s in scan load; do
	for c in warm cold; do
		for t in perfview samply; do
			for f in md html json xlsx; do
				[ -s "$T/night/trend-$s-$c-$t.$f" ] && ok ||
					not_ok "no trend-$s-$c-$t.$f: $(ls "$T/night")"
			done
			if [ "$s" = scan ] || [ "$c" = cold ]; then
				expect_grep "^nightly: $s/$c/$t: new change point at" "$T/first.out"
				[ -s "$T/night/alerts-$s-$c-$t.txt" ] && ok ||
					not_ok "no alert state for $s/$c/$t"
			else
				expect_grep "^nightly: $s/$c/$t: no new change point" "$T/first.out"
			fi
		done
	done
done
expect_grep "^nightly: scan/warm/samply: new change point at 06aaaaaaaa, see $T/night/trend-scan-warm-samply.md" "$T/first.out"
# one line per series, and one per change naming the series that saw it
n=$(grep -c '^nightly: [a-z]*/[a-z]*/[a-z]*: ' "$T/first.out")
[ "$n" -eq 8 ] && ok || not_ok "$n series lines, want 8"
expect_grep "^nightly: new change in scan at 06aaaaaaaa, seen by cold/perfview, cold/samply, warm/perfview, warm/samply$" "$T/first.out"
expect_grep "^nightly: new change in load at 04aaaaaaaa, seen by cold/perfview, cold/samply$" "$T/first.out"
n=$(grep -c '^nightly: new change' "$T/first.out")
[ "$n" -eq 2 ] && ok || not_ok "$n change lines, want 2"
# each series' reports are its own: its key, its change point and size
if python3 - "$T/night" "$tail" <<'PY'
import json, sys
d, tail = sys.argv[1], sys.argv[2]
for s in ("scan", "load"):
    for c in ("warm", "cold"):
        for t in ("perfview", "samply"):
            j = json.load(open("%s/trend-%s-%s-%s.json" % (d, s, c, t)))
            assert (j["scenario"], j["cache"], j["tool"]) == (s, c, t), j
            a = j["alerts"]
            if s == "scan":
                assert len(a) == 1 and a[0]["first_bad"] == "06" + tail, a
                f = a[0]["functions"][0]
                assert f["name"] == "parse" and abs(f["change_pct"] - 30) < 0.3, f
            elif c == "cold":
                assert len(a) == 1 and a[0]["first_bad"] == "04" + tail, a
                f = a[0]["functions"][0]
                assert f["name"] == "read" and abs(f["change_pct"] - 40) < 0.3, f
            else:
                assert a == [], a
PY
then ok; else not_ok "the series' JSON reports"; fi

# The site: six alerts, two changes, each one entry naming its series.
expect_grep '<a href="alerts.html">alerts (2)</a>' "$T/site/index.html"
expect_grep '6 alerts of 2 changes' "$T/site/alerts.html"
expect_grep '^<p class="alert">scan: one change at 06aaaaaaaa, seen by 4 series: <a href="s/scan--cold--perfview.html">cold / perfview</a>, <a href="s/scan--cold--samply.html">cold / samply</a>, <a href="s/scan--warm--perfview.html">warm / perfview</a>, <a href="s/scan--warm--samply.html">warm / samply</a></p>' "$T/site/alerts.html"
expect_grep '^<p class="alert">load: one change at 04aaaaaaaa, seen by 2 series: ' "$T/site/alerts.html"
n=$(grep -c '^<p class="alert">' "$T/site/alerts.html")
[ "$n" -eq 2 ] && ok || not_ok "$n alert entries, want 2"
expect_grep 'one change with 3 other series' "$T/site/index.html"

# The next night: nothing new.
expect_exit 0 nightly --out "$T/night" "$T"/bundles/*
expect_no_grep "^nightly: new change" "$T/out"
n=$(grep -c ': no new change point$' "$T/out")
[ "$n" -eq 8 ] && ok || not_ok "$n quiet series lines, want 8"

# The history holds the alerts too: one group a change, with the series
# that saw it.
expect_exit 0 pd alerts
expect_grep "^#[0-9]* new regression scan/cold: .* at 06aaaaaaaa, from parse +30.0 %" "$T/out"
expect_grep "seen in cold/perfview, cold/samply, warm/perfview, warm/samply;" "$T/out"
expect_grep "^#[0-9]* new regression load/cold: .* at 04aaaaaaaa, from read +40.0 %" "$T/out"
n=$(grep -c '^#' "$T/out")
[ "$n" -eq 2 ] && ok || not_ok "$n alert groups, want 2"
H=$PERFDIFF_DB

# Run once per cache state, as the runbook did, on a history of its own:
# the cold run keeps its own alert state (it used to find the warm run's
# and say nothing) and its reports beside the warm ones; nobody triaged
# the change the warm run stored, so it is news to the cold series too.
history_db per
expect_exit 1 nightly --out "$T/per" --scenario scan --cache warm "$T"/bundles/*
expect_exit 1 nightly --out "$T/per" --scenario scan --cache cold
expect_grep "^nightly: scan/cold/perfview: new change point at 06aaaaaaaa" "$T/out"
ls "$T/per" >"$T/per.ls"
n=$(grep -c '^trend-scan-.*\.md$' "$T/per.ls")
[ "$n" -eq 4 ] && ok || not_ok "$n scan reports after two calls, want 4: $(cat "$T/per.ls")"
expect_grep "cache warm, tool perfview" "$T/per/trend-scan-warm-perfview.md"
expect_exit 0 nightly --out "$T/per" --scenario scan --cache warm --tool samply
expect_lines 1 "$T/out"

# A change marked expected after the warm run is no news to the cold one.
history_db marked
expect_exit 1 nightly --out "$T/marked" --scenario scan --cache warm "$T"/bundles/*
expect_exit 0 pd alerts set 1 expected --note "the new parser"
expect_exit 0 nightly --out "$T/marked" --scenario scan --cache cold
expect_grep "^nightly: scan/cold/perfview: no new change point" "$T/out"
expect_exit 0 pd alerts
expect_grep "^#1 expected regression scan/warm: .* at 06aaaaaaaa" "$T/out"
expect_grep "seen in warm/perfview, warm/samply, cold/perfview, cold/samply;" "$T/out"

# The state file of the one-series job (OUT/alerts-SCENARIO.txt) carries
# over, into a history that has no alerts yet: what it reported is not
# reported again.
history_db old
mkdir -p "$T/old"
echo "06$tail" >"$T/old/alerts-scan.txt"
expect_exit 0 nightly --out "$T/old" --scenario scan "$T"/bundles/*
history_db old2
expect_exit 1 nightly --out "$T/old2" --scenario scan "$T"/bundles/*
export PERFDIFF_DB="$H"

# The runbook's fix of a bundle's build_meta.json, ingested again: the
# same runs with the new metadata, not the profiles stored twice.
before=$(pd runs --db "$PERFDIFF_DB" -f tsv | wc -l)
sed 's/rustc 1.80.0/rustc 1.80.1/' "$good/build_meta.json" >"$T/meta" &&
	cp "$T/meta" "$good/build_meta.json"
expect_exit 0 pd ingest --db "$PERFDIFF_DB" "$good"
expect_grep "updated build_meta.json of bundle" "$T/err"
after=$(pd runs --db "$PERFDIFF_DB" -f tsv | wc -l)
[ "$before" -eq "$after" ] && ok || not_ok "runs $before before, $after after the re-ingest"
expect_exit 0 pd runs --db "$PERFDIFF_DB" -v --sha 05 --scenario scan
expect_grep "rustc 1.80.1" "$T/out"
expect_no_grep "rustc 1.80.0" "$T/out"

# Errors: exit 2.
expect_exit 2 nightly --out "$T/night" --tool nosuchtool
expect_grep "no runs stored in .* for tool nosuchtool" "$T/err"
expect_exit 2 nightly --out "$T/night" --bogus 1
# perfdiff not found (not on PATH, or not where --perfdiff says): one
# line that says so and how to name it, before anything is made
expect_exit 2 sh "$PD_ROOT/scripts/nightly.sh" --db "$PERFDIFF_DB" --out "$T/nopd" --perfdiff "$T/no/perfdiff"
expect_grep "^nightly: perfdiff not found ('$T/no/perfdiff'): put it on PATH, or pass --perfdiff BIN (or set PERFDIFF)" "$T/err"
expect_lines 1 "$T/err"
if [ ! -e "$T/nopd" ]; then ok; else not_ok "nightly made its folder"; fi
finish
