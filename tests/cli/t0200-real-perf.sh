#!/bin/sh
# The method on real data: a small C program built twice, parse_record()
# doing 40 % more work in the candidate, each build profiled six times
# with `perf record -g`, the builds interleaved (base, cand, base, ...).
# 6000 iterations: about 3 s and 5 000 samples a run.
#
# What the statistics promise (statistics.md, "Several runs per side" and
# "Machine-wide shifts"), and so what is asserted:
# - three runs a side find the change: exit 1, parse_record the top
#   regression with an interval that holds +40 %, nothing else flagged;
#   three runs against three of the same build flag nothing;
# - one pair a side never says a wrong thing: nothing but parse_record
#   regressed, never an improvement, exit 1 only for parse_record, and
#   a pair of the same build flags nothing. Whether one pair *finds*
#   +40 % depends on the machine: on a busy core this program's two
#   functions trade cycles, each moving 10-20 % from run to run while
#   the other moves the other way, which one pair cannot tell from a
#   change (the pair then says undecided, with its MDE); three runs a
#   side measure that scatter.
# Skipped only when perf cannot record; recorded once more when the
# first recording fails (lib.sh, measured).
. "$(dirname "$0")/lib.sh"
if ! perf record -q -o "$T/probe.data" true >/dev/null 2>&1; then
	echo "skipped: perf cannot record here (perf_event_paranoid or no perf)"
	exit 77
fi

# check_planted JSON SINGLE: the JSON's verdict on base vs cand.
check_planted() {
	python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
single = sys.argv[2] == "1"
prog = [f for f in d["functions"] if not f["system"]]
moved = [(f["function"], f["self"]["status"]) for f in prog
         if f["self"]["status"] in ("regressed", "improved")]
# nothing but parse_record ever moves, and never the wrong way
assert all(m == ("parse_record", "regressed") for m in moved), moved
pr = [f for f in prog if f["function"] == "parse_record"][0]["self"]
assert pr["delta_pct"] > 0, pr
if d["verdict"] == "regressed":
    assert moved, d["verdict"]
    assert prog[0]["function"] == "parse_record", prog[0]["function"]
    assert "parse_record" in d["headline"], d["headline"]
    if single:
        # one pair: the function's own speed on a busy core moves its
        # interval by the 10-20 % one run cannot show
        assert pr["ci_low"] < 1.6 and pr["ci_high"] > 1.2, pr
    else:
        assert pr["ci_low"] < 1.40 < pr["ci_high"] or \
               abs(pr["delta_pct"] - 40) < 10, pr
else:
    assert single, "three runs a side: " + d["verdict"] + ", " + str(pr)
    assert d["verdict"] == "inconclusive", d["verdict"]
PY
}

# check_same JSON: nothing of the program moved.
check_same() {
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
moved = [(f["function"], m) for f in d["functions"] for m in ("self", "total")
         if not f["system"] and f[m]["status"] in ("regressed", "improved")]
assert not moved, moved
PY
}

run() {
	if ! "$PD_ROOT/scripts/record-workload.sh" "$T/w" 6 6000 1999 2>"$T/rec.err"; then
		not_ok "recording: $(cat "$T/rec.err")"
		return
	fi
	W=$T/w
	# Three runs a side: the promise.
	expect_exit 1 pd -f json -b "$W/base-1.perf.txt" -b "$W/base-2.perf.txt" \
		-b "$W/base-3.perf.txt" -c "$W/cand-1.perf.txt" \
		-c "$W/cand-2.perf.txt" -c "$W/cand-3.perf.txt"
	if check_planted "$T/out" 0; then ok; else
		not_ok "three runs a side: planted regression not found"
		pd -b "$W/base-1.perf.txt" -b "$W/base-2.perf.txt" -b "$W/base-3.perf.txt" \
			-c "$W/cand-1.perf.txt" -c "$W/cand-2.perf.txt" -c "$W/cand-3.perf.txt" >&2
	fi
	pd -f json -b "$W/base-1.perf.txt" -b "$W/base-3.perf.txt" -b "$W/base-5.perf.txt" \
		-c "$W/base-2.perf.txt" -c "$W/base-4.perf.txt" -c "$W/base-6.perf.txt" \
		>"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" -eq 0 ] && check_same "$T/out"; then ok; else
		not_ok "three runs a side of the same build flagged a change (exit $rc)"
		pd -b "$W/base-1.perf.txt" -b "$W/base-3.perf.txt" -b "$W/base-5.perf.txt" \
			-c "$W/base-2.perf.txt" -c "$W/base-4.perf.txt" -c "$W/base-6.perf.txt" >&2
	fi
	# One pair a side: each base with the candidate recorded right after
	# it, so that a spell of slowness falls on both sides alike.
	for i in 1 2 3; do
		pd -f json "$W/base-$i.perf.txt" "$W/cand-$i.perf.txt" >"$T/out" 2>"$T/err"
		rc=$?
		if { [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]; } && check_planted "$T/out" 1 &&
			{ [ "$rc" -eq 1 ] || ! grep -q '"verdict": "regressed"' "$T/out"; }; then
			ok
		else
			not_ok "base-$i vs cand-$i: a wrong verdict (exit $rc)"
			pd "$W/base-$i.perf.txt" "$W/cand-$i.perf.txt" >&2
		fi
	done
	# A/A: three pairs of the same build.
	for pair in "base-1 base-2" "base-3 base-4" "cand-1 cand-3"; do
		set -- $pair
		pd -f json "$W/$1.perf.txt" "$W/$2.perf.txt" >"$T/out" 2>"$T/err"
		rc=$?
		if [ "$rc" -eq 0 ] && check_same "$T/out"; then ok; else
			not_ok "A/A $1 vs $2 flagged a change (exit $rc)"
			pd "$W/$1.perf.txt" "$W/$2.perf.txt" >&2
		fi
	done
}
measured run
finish
