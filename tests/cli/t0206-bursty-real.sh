#!/bin/sh
# Bursty functions on real recordings: fixtures/workload/bursty.c runs
# work() steadily and, after a random one round in 50, collect() for ten
# times as long. Three pairs of runs of one build, recorded with perf on
# whatever else the machine runs: collect()'s count moves by a third from
# run to run. The importer puts each sample in its time block, and a
# history stores each run's dispersions over them (docs/history.md,
# "Tables", run_bursts) as tests/tools/block_dispersion.py computes them
# from the same text (collect()'s mostly far beyond sampling's 1, but a
# run whose bursts came short and often reads near 1, so no floor is
# asserted). The
# verdict no longer looks at them: each pair's report is the same with
# the sample times taken out of the text.
. "$(dirname "$0")/lib.sh"
if ! perf record -q -o "$T/probe.data" true >/dev/null 2>&1; then
	echo "skipped: perf cannot record here (perf_event_paranoid or no perf)"
	exit 77
fi
cc -O2 -g -fno-omit-frame-pointer -o "$T/bursty" "$PD_ROOT/fixtures/workload/bursty.c"
rec() { # the recording as FILE.data and as perf script text FILE
	perf record -q -F 1999 -g -o "$1.data" "$T/bursty" 400 >/dev/null 2>&1 &&
		perf script -i "$1.data" >"$1" 2>/dev/null
}
export PERFDIFF_DB="$T/blocks.db"
stored() { # SHA FILE [NAME]: FILE (as NAME) the only run of commit SHA
	mkdir -p "$T/b$1/profiles"
	cp "$2" "$T/b$1/profiles/${3:-$(basename "$2")}"
	printf '{"git_sha": "%s", "scenario": "s", "cache": "warm"}\n' "$1" >"$T/b$1/build_meta.json"
	pd ingest "$T/b$1" >"$T/ingest.out" 2>&1 || not_ok "ingest $2: $(head -c 300 "$T/ingest.out")"
}
untimed() { # the perf script text without its sample times
	sed -E '/^[^[:space:]]/s/ [0-9]+\.[0-9]+: / /' "$1"
}
for i in 1 2 3; do
	if ! rec "$T/a$i.txt" || ! rec "$T/b$i.txt"; then
		not_ok "recording failed"
		finish
	fi
	mkdir -p "$T/t$i" "$T/u$i"
	for s in a b; do
		cp "$T/$s$i.txt" "$T/t$i/$s.txt"
		untimed "$T/$s$i.txt" >"$T/u$i/$s.txt"
		stored "$(printf '%s%039d' "$s" "$i")" "$T/$s$i.txt"
		python3 "$PD_ROOT/tests/tools/block_dispersion.py" --run "$T/$s$i.txt" >"$T/w$s$i.json"
	done
	# the rule's steady samples leave the kernel's out, a stored run's
	# hold them: within 10 %
	if python3 "$PD_ROOT/tests/tools/compare_bursts.py" --self-only --only collect --collector collect --min 0 \
		"$PERFDIFF_DB" perf-script "$(printf 'a%039d' "$i")=$T/wa$i.json:0.1" \
		"$(printf 'b%039d' "$i")=$T/wb$i.json:0.1"; then ok; else not_ok "pair $i: bursts"; fi
	cd "$T/t$i" && pd -f json a.txt b.txt >"$T/d$i.json" 2>/dev/null
	cd "$T/u$i" && pd -f json a.txt b.txt >"$T/d$i.untimed.json" 2>/dev/null
	cd "$T" || exit 1
	if cmp -s "$T/d$i.json" "$T/d$i.untimed.json"; then ok; else
		not_ok "pair $i: times change the report: $(diff "$T/d$i.json" "$T/d$i.untimed.json" | head -5)"
	fi
	if grep -q '"bursty: ' "$T/d$i.json"; then not_ok "pair $i: a bursty warning"; else ok; fi
done
# how often one pair of runs of one build called collect() changed: a
# note for the log, not a check
python3 - "$T"/d1.json "$T"/d2.json "$T"/d3.json <<'PY'
import json, re, sys
for p in sys.argv[1:]:
    for x in json.load(open(p))["functions"]:
        if re.sub(r"\.(constprop|isra|part)\.\d+$", "", x["function"]) == "collect":
            m = x["self"]
            print("note: collect() %d -> %d samples: %s" % (m["baseline_samples"], m["candidate_samples"], m["status"]))
PY
# perf.data read directly: the same samples as its perf script text.
# (Its time blocks are not seen from outside: ingest reads no perf.data
# and the verdict does not use them.)
pd -f json "$T/a1.txt.data" "$T/b1.txt.data" >"$T/dd1.json" 2>/dev/null
if python3 - "$T/d1.json" "$T/dd1.json" <<'PY'; then ok; else not_ok "perf.data samples"; fi
import json, re, sys
name = lambda s: re.sub(r"\.(constprop|isra|part)\.\d+$", "", s)
t, d = ({name(x["function"]): x["self"] for x in json.load(open(p))["functions"]}
        for p in sys.argv[1:3])
for f in ("collect", "work"):
    a, b = t[f], d[f]
    assert (a["baseline_samples"], a["candidate_samples"]) == \
        (b["baseline_samples"], b["candidate_samples"]), (f, a, b)
PY
finish
