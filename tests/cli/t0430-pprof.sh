#!/bin/sh
# pprof: every corpus profile and sample type against go tool pprof -top,
# a profile written byte by byte and counted by hand, broken variants of
# it, and a Go program built twice with a planted slowdown, whose diff
# must agree with go tool pprof -diff_base.
. "$(dirname "$0")/lib.sh"
PP=$PD_CORPUS/pprof
MAKE="python3 $PD_ROOT/tests/tools/pprof_make.py"
TOP="python3 $PD_ROOT/tests/tools/pprof_top.py"
have_go=0
if command -v go >/dev/null 2>&1; then
	have_go=1
	export GOCACHE="$T/gocache" GOPATH="$T/gopath" HOME="${HOME:-$T}"
	export GOFLAGS=-mod=mod GOTOOLCHAIN=local GO111MODULE=off
else
	echo "go not found: the checks against go tool pprof are skipped"
fi

# same_funcs OURS REF: per-function self/total (or their deltas) agree
same_funcs() {
	python3 - "$1" "$2" <<'PY'
import json, sys
ours, ref = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
o = {}
for f in ours["functions"]:
    s, t = f["self"], f["total"]
    if isinstance(s, dict):  # a diff: the weights' differences as recorded
        # ("delta" is the change beyond the program's shift, docs/cli.md)
        s, t = s["candidate"] - s["baseline"], t["candidate"] - t["baseline"]
    a, b = o.get(f["function"], (0, 0))
    o[f["function"]] = (a + s, b + t)
if "profile" in ours:
    assert abs(ours["profile"]["total"] - ref["total"]) <= 1e-9 * ref["total"]
    assert set(o) == set(ref["functions"]), (sorted(set(o) ^ set(ref["functions"]))[:5])
for k, (s, t) in ref["functions"].items():
    assert k in o, k
    assert abs(o[k][0] - s) <= 1e-9 * max(1, abs(s)), (k, o[k], s)
    assert abs(o[k][1] - t) <= 1e-9 * max(1, abs(t)), (k, o[k], t)
PY
}

if corpus_part "the pprof corpus checks"; then
	for f in "$PP"/*; do
		expect_exit 0 pd show "$f"
		[ $have_go = 1 ] || continue
		# every sample type, by index, and the default one
		n=$(go tool pprof -raw "$f" 2>/dev/null |
			sed -n '/^Samples:/{n;p;q}' | wc -w)
		for st in "" $(seq 0 $((n - 1))); do
			pd show -f json ${st:+--sample-type $st} "$f" >"$T/o.json"
			$TOP "$f" $st >"$T/r.json"
			if same_funcs "$T/o.json" "$T/r.json"; then ok; else
				not_ok "$f sample type '$st' differs from pprof -top"
			fi
		done
	done
	# uncompressed protobuf reads the same; a type by name
	gzip -dc "$PP/eno-go-heap.pprof" >"$T/heap.pb"
	pd show -f json --sample-type alloc_space "$PP/eno-go-heap.pprof" >"$T/a.json"
	pd show -f json --sample-type alloc_space "$T/heap.pb" >"$T/b.json"
	if python3 - "$T/a.json" "$T/b.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a["functions"] == b["functions"]
assert a["profile"]["unit"] == "bytes" and a["profile"]["event"] == "alloc_space/bytes"
assert a["profile"]["total"] == 687354946  # go tool pprof -sample_index=alloc_space
assert "524288" in a["profile"]["count_rule"]
PY
	then ok; else not_ok "uncompressed pprof, sample type by name"; fi
	expect_exit 2 pd show --sample-type nope "$PP/eno-go-heap.pprof"
	expect_grep "no sample type 'nope' (it has alloc_objects, alloc_space, inuse_objects, inuse_space)" "$T/err"
	expect_exit 0 pd "$T/heap.pb" "$PP/eno-go-heap.pprof"
fi

# Counted by hand (tests/tools/pprof_make.py): main -> parse with
# inlined_helper inlined into it, 3+2 samples (packed, then unpacked and
# labelled), 4 more with memcpy (libc) below; one unsymbolized location;
# one function with a system name only; a zero-weight stack.
$MAKE good "$T/good.pb.gz"
pd show -f json "$T/good.pb.gz" >"$T/good.json"
if python3 - "$T/good.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: (x["self"], x["total"], x["module"]) for x in d["functions"]}
ms = 1e6
assert d["profile"]["format"] == "pprof" and d["profile"]["unit"] == "ns"
assert d["profile"]["samples"] == 15 and d["profile"]["total"] == 150 * ms
assert d["profile"]["interval"] == 10 * ms
assert f["inlined_helper"] == (50 * ms, 90 * ms, "app"), f
assert f["parse"] == (0, 90 * ms, "app"), f
assert f["main"] == (0, 150 * ms, "app"), f
assert f["memcpy"] == (40 * ms, 40 * ms, "libc.so.6"), f
assert f["_Z4workv"] == (50 * ms, 50 * ms, "app"), f
assert f["[unknown]"][:2] == (10 * ms, 10 * ms), f
assert len(f) == 6, f
PY
then ok; else not_ok "hand-counted pprof"; fi

# A Go mutex profile: the delays (ns, no period) are weights, and the
# contentions counted beside them are the number of events: 15, not the
# 156 M nanoseconds. A folded file of summed weights is warned about.
$MAKE mutex "$T/mutex.pb.gz"
expect_exit 0 pd show -f json "$T/mutex.pb.gz"
if python3 - "$T/out" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["profile"]
assert p["unit"] == "ns" and p["event"] == "delay/nanoseconds", p
assert p["samples"] == 15 and p["total"] == 150000000 + 5 * 1234567, p
assert p["count_rule"] == "sample counts = the contentions/count values", p
PY
then ok; else not_ok "mutex pprof: $(head -c 300 "$T/out")"; fi
printf 'main;a 250000123\nmain;b 500001\nmain;c 1750003\n' >"$T/summed.folded"
expect_exit 0 pd show "$T/summed.folded"
expect_grep "warning: .*summed.folded: 2.52e+08 samples if its numbers were sample counts, more than a recording holds: they are weights summed per stack (as stackcollapse-perf.pl sums perf's periods); read as samples of 1.75e+06 each, the median stack's weight" "$T/err"
expect_exit 0 pd show -f json "$T/summed.folded"
expect_grep '"count_rule":.*"sample counts = weights / 1750003, the median stack' "$T/out"
expect_exit 0 pd show "$T/summed.folded" --sample-weight 250000
expect_no_grep "more than a recording holds" "$T/err"

# Broken input: one line naming the file and the byte, exit 2
for k in truncated wire string-range no-location no-function string0 \
	concat negative values; do
	$MAKE $k "$T/$k.pb.gz"
	expect_exit 2 pd show "$T/$k.pb.gz"
	expect_grep "^perfdiff: $T/$k.pb.gz: byte [0-9]*: pprof: " "$T/err"
	expect_lines 1 "$T/err"
	cp "$T/err" "$T/err.$k"
done
expect_grep "concatenated profiles" "$T/err.concat"
expect_grep "string index 500 out of range" "$T/err.string-range"
expect_grep "wire type varint, expected length-delimited" "$T/err.wire"
# One Sample (bytes 2-3: location_id 1) without values or sample types:
# refused at the sample, before a row of values is made for its stack
printf '\022\002\010\001' >"$T/novalues.pb"
expect_exit 2 pd show --from pprof "$T/novalues.pb"
expect_grep "^perfdiff: $T/novalues.pb: byte 2: pprof: Sample has locations but no values$" "$T/err"
head -c 7 "$PP/speedscope-simple.prof" >"$T/cut.gz" 2>/dev/null &&
	expect_exit 2 pd show "$T/cut.gz"

# A Go program built twice, parse made 2x slower in the second build,
# three runs a side, interleaved (a1 b1 a2 b2 a3 b3).
if [ $have_go = 1 ]; then
	cp "$PD_ROOT/fixtures/pprof/work.go" "$T/"
	go_run() {
		if (cd "$T" && go build -o w1 work.go &&
			go build -ldflags "-X main.slow=2" -o w2 work.go &&
			for r in 1 2 3; do ./w1 a$r.pprof && ./w2 b$r.pprof || exit 1; done) >"$T/go.log" 2>&1; then
			# Every function here spends its time in one inlined
			# spin loop, the only well-sampled self: each run's
			# level is that loop's, which lies under parse's total,
			# so parse's total is judged as it is (statistics.md,
			# "Machine-wide shifts"), not beyond itself at 1.5x.
			# The split of the loop's samples between parse and
			# render scatters by some 15 % a run (Go's own
			# attribution; their sum holds to 1 %), which three
			# runs measure.
			pd -f json -b "$T/a1.pprof" -b "$T/a2.pprof" -b "$T/a3.pprof" \
				-c "$T/b1.pprof" -c "$T/b2.pprof" -c "$T/b3.pprof" >"$T/d.json"
			if python3 - "$T/d.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: x for x in d["functions"]}
p = f["main.parse"]["total"]
assert 1.6 < p["ratio"] < 2.5 and p["ci_low"] > 1.3, p
assert p["status"] == "regressed" and p["shift_ratio"] is None, p
for n in ("main.compute", "main.render"):
    m = f[n]["total"]
    assert m["status"] not in ("regressed", "improved"), (n, m)
    assert 0.8 < m["ratio"] < 1.25, (n, m)
    assert m["ci_low"] < 1 < m["ci_high"], (n, m)
PY
			then ok; else not_ok "planted x2 in main.parse's total"; fi
			pd -f json "$T/a1.pprof" "$T/b1.pprof" >"$T/d1.json"
			$TOP "$T/b1.pprof" -- "$T/a1.pprof" >"$T/r.json"
			if same_funcs "$T/d1.json" "$T/r.json"; then ok; else
				not_ok "diff disagrees with go tool pprof -diff_base"
			fi
			# the inlined frames are functions of their own
			expect_grep '"function":	"main.spin"' "$T/d1.json"
		else
			not_ok "building the Go workload: $(head -c 300 "$T/go.log")"
		fi
	}
	measured go_run
fi

echo "pprof: $pass passed, $failed failed"
[ "$failed" -eq 0 ]
