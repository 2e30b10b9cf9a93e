#!/bin/sh
# Real repeat runs through the history: a program built twice and
# profiled with perf record into bundles (the slow build 40 % more work in
# parse_record), ingested, then compared from the database. The planted
# change must be found; two commits of the same build must show nothing.
# Recorded once more when the first recording fails (lib.sh, measured).
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 not installed: skipped"; exit 77; }
if ! perf record -q -o "$T/probe.data" true >/dev/null 2>&1; then
	echo "skipped: perf cannot record here (perf_event_paranoid or no perf)"
	exit 77
fi
export PERFDIFF_DB="$T/real.db"
mk() { # mk NAME SHA SIDE DATE RUN...
	name=$1 sha=$2 side=$3 date=$4
	shift 4
	mkdir -p "$T/$name/profiles"
	printf '{"git_sha": "%s", "scenario": "wl", "cache": "warm", "commit_date": "%s"}\n' \
		"$sha" "$date" >"$T/$name/build_meta.json"
	for i in "$@"; do
		cp "$T/w/$side-$i.perf.txt" "$T/$name/profiles/perf.script.$i.txt"
	done
}
run() {
	rm -rf "$T/w" "$T/A" "$T/B" "$T/C" "$PERFDIFF_DB" "$PERFDIFF_DB-wal" "$PERFDIFF_DB-shm"
	if ! "$PD_ROOT/scripts/record-workload.sh" "$T/w" 6 1200 1999 2>"$T/rec.err"; then
		not_ok "recording: $(cat "$T/rec.err")"
		return
	fi
	# The two A/A commits take alternate runs, so that a drift of the
	# machine while recording falls on both alike.
	mk A 1111111aaaa base 2026-01-01T00:00:00Z 1 3 5
	mk B 2222222bbbb base 2026-01-02T00:00:00Z 2 4 6
	mk C 3333333cccc cand 2026-01-03T00:00:00Z 1 2 3
	expect_exit 0 pd ingest "$T/A" "$T/B" "$T/C"
	[ "$(sqlite3 "$PERFDIFF_DB" 'select count(*) from runs')" = 9 ] && ok || not_ok "9 runs"

	expect_exit 1 pd compare 2222222 3333333 --scenario wl -f json
	cp "$T/out" "$T/cmp.json"
	if python3 - "$T/cmp.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["dispersion"]["method"] == "moderated-t"
top = d["functions"][0]
assert top["function"] == "parse_record", top["function"]
assert top["self"]["status"] == "regressed", top["self"]
assert 1.2 < top["self"]["ratio"] < 1.7, top["self"]["ratio"]
others = [f["function"] for f in d["functions"][1:] if f["self"]["status"] in ("regressed", "improved")]
assert not others, others
PY
	then ok; else not_ok "planted change through the history"; pd compare 2222222 3333333 --scenario wl >&2; fi

	# A/A: two commits of the same build.
	pd compare 1111111 2222222 --scenario wl -f json >"$T/aa.json" 2>"$T/err"
	rc=$?
	if [ "$rc" -eq 0 ] && python3 - "$T/aa.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
moved = [(f["function"], m) for f in d["functions"] for m in ("self", "total")
         if f[m]["status"] in ("regressed", "improved")]
assert not moved, moved
PY
	then ok; else not_ok "A/A through the history (exit $rc)"; pd compare 1111111 2222222 --scenario wl >&2; fi
}
measured run
finish
