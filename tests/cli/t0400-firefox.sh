#!/bin/sh
# samply / Firefox Profiler profiles: corpus, independent numbers, CPU
# weights, offline symbolication (ELF with build id, samply's sidecar),
# and malformed input.
. "$(dirname "$0")/lib.sh"
FP=$PD_CORPUS/firefox-processed

if corpus_part "the samply and Firefox corpus checks"; then
	# Every file imports; the symbol-server reply is named for what it is.
	for f in "$FP"/* "$PD_CORPUS"/firefox-gecko/*; do
		case $f in
		*symbol-server-response*)
			expect_exit 2 pd show "$f"
			expect_grep "symbol data .*not a profile" "$T/err" ;;
		*)
			expect_exit 0 pd show -f json "$f" ;;
		esac
	done

	# Wall-clock numbers against an independent reading (tests/tools/ffprof_funcs.py).
	for f in "$FP"/*.json "$FP"/*.json.gz "$FP"/*.snap; do
		case $f in *symbol-server*) continue ;; esac
		pd show --weight wall -f json "$f" >"$T/ours.json" 2>/dev/null
		python3 "$PD_ROOT/tests/tools/ffprof_funcs.py" "$f" >"$T/ref.json"
		if python3 - "$T/ours.json" "$T/ref.json" <<'PY'
import json, sys
ours, ref = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert abs(ours["profile"]["total"] - ref["total"]) < 1e-6 * ref["total"]
o = {}
for f in ours["functions"]:
    o[f["function"]] = o.get(f["function"], 0) + f["self"]
for k, (s, t) in ref["functions"].items():
    if k.startswith("0x") or k == "[unknown]":
        continue  # absolute-address labels: perfdiff names them [unknown]
    assert abs(o.get(k, 0) - s) <= 1e-6 * max(1, s), (k, o.get(k), s)
PY
		then ok; else not_ok "numbers of $f"; fi
	done

	# CPU weights: the sum of threadCPUDelta (first value of each thread
	# left out, samples with a stack only), converted from microseconds.
	f=$FP/samply-macos-v49-unsymbolicated.json
	pd show -f json "$f" >"$T/cpu.json"
	if python3 - "$f" "$T/cpu.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
want = 0.0
for t in d["threads"]:
    s = t["samples"]
    for i, (st, c) in enumerate(zip(s["stack"], s["threadCPUDelta"])):
        if i and st is not None and c:
            want += c * 1000
got = json.load(open(sys.argv[2]))["profile"]["total"]
assert abs(got - want) < 1e-6 * want, (got, want)
PY
	then ok; else not_ok "CPU weights"; fi
	expect_grep "CPU time" "$T/cpu.json"

	# A DevTools recording whose "profile" key comes after 1.8 MB of markers
	# (Firefox 59 wrote them first): the format is told by the keys of the
	# whole document, not by what the first 64 KiB hold ("JSON of an unknown
	# shape" before). The numbers are those of the same recording unpadded.
	rec=$PD_CORPUS/firefox-gecko/devtools-recording-firefox61-gecko-v9-recursion.json
	python3 - "$rec" "$T/late.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["markers"] = [{"name": "Paint", "start": i * 1.5, "end": i * 1.5 + 0.3,
                 "stack": None, "isOffMainThread": False} for i in range(15000)]
out = {k: d[k] for k in ("label", "duration", "markers")}
out.update({k: v for k, v in d.items() if k not in out})
json.dump(out, open(sys.argv[2], "w"))
PY
	expect_exit 0 pd show -f json "$rec"
	cp "$T/out" "$T/late-want.json"
	expect_exit 0 pd show -f json "$T/late.json"
	if python3 - "$T/out" "$T/late-want.json" <<'PY'; then ok; else not_ok "late profile key"; fi
import json, sys
got, want = (json.load(open(p)) for p in sys.argv[1:])
assert got["functions"] == want["functions"] and got["functions"], got
PY
	expect_exit 0 pd show "$T/late.json"
	expect_grep "late.json: firefox, 15 samples" "$T/out"
fi

# Symbolication from an ELF binary built here; addresses from nm.
mkdir -p "$T/bin" "$T/other"
cc -O2 -g -fno-omit-frame-pointer -o "$T/bin/workload" "$PD_ROOT/fixtures/workload/workload.c"
printf 'int main(void) { return 0; }\n' >"$T/o.c" && cc -o "$T/other/workload" "$T/o.c"
build_id=$(readelf -n "$T/bin/workload" | sed -n 's/.*Build ID: //p')
nm "$T/bin/workload" >"$T/nm.txt"
python3 - "$T/nm.txt" "$build_id" "$T/unsym.json" <<'PY'
import json, sys
syms = {}
for line in open(sys.argv[1]):
    parts = line.split()
    if len(parts) == 3 and parts[1] in "tT":
        syms.setdefault(parts[2].split(".")[0], int(parts[0], 16))
want = ["main", "process_batch", "parse_record", "hash_key", "sort_bucket"]
strings, funcs, frames = [], [], []
for n in want:
    strings.append("0x%x" % (syms[n] + 3))
    funcs.append(len(funcs))
    frames.append(syms[n] + 3)  # an address inside the function
# stacks: 0 main, 1 main>process_batch, 2 ..>parse_record, 3 ..>hash_key, 4 ..>sort_bucket
samples = [2] * 10 + [3] * 5 + [4] * 2 + [1]
profile = {
    "meta": {"interval": 1.0, "preprocessedProfileVersion": 49, "version": 24,
             "symbolicated": False, "startTime": 0,
             "sampleUnits": {"time": "ms", "eventDelay": "ms", "threadCPUDelta": "µs"}},
    "libs": [{"name": "workload", "path": "/opt/app/workload", "debugName": "workload",
              "debugPath": "/opt/app/workload", "breakpadId": "00112233445566778899AABBCCDDEEFF0",
              "codeId": sys.argv[2], "arch": "x86_64"}],
    "threads": [{
        "name": "workload", "processName": "workload", "pid": "42", "tid": 42,
        "samples": {"length": len(samples), "stack": samples, "time": list(range(len(samples))),
                    "weight": None, "weightType": "samples"},
        "stackTable": {"length": 5, "frame": [0, 1, 2, 3, 4], "prefix": [None, 0, 1, 1, 1]},
        "frameTable": {"length": 5, "address": frames, "func": funcs, "nativeSymbol": [None] * 5,
                       "inlineDepth": [0] * 5, "category": [0] * 5},
        "funcTable": {"length": 5, "name": list(range(5)), "resource": [0] * 5,
                      "isJS": [False] * 5, "fileName": [None] * 5},
        "resourceTable": {"length": 1, "lib": [0], "name": [5], "type": [1]},
        "nativeSymbols": {"length": 0, "libIndex": [], "address": [], "name": []},
        "stringArray": strings + ["workload"],
    }],
}
json.dump(profile, open(sys.argv[3], "w"))
PY
expect_exit 0 pd show -f json "$T/unsym.json"
expect_grep "workload+0x" "$T/out"
expect_exit 0 pd show -f json --symbols "$T/other" --symbols "$T/bin" "$T/unsym.json"
if python3 - "$T/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: x for x in d["functions"]}
assert f["parse_record"]["self"] == 10e6, f.get("parse_record")
assert f["hash_key"]["self"] == 5e6 and f["sort_bucket"]["self"] == 2e6
assert f["process_batch"]["total"] == 18e6 and f["main"]["total"] == 18e6
assert not [w for w in d["warnings"] if "unsymbolicated" in w], d["warnings"]
PY
then ok; else not_ok "ELF symbolication"; fi
expect_grep "not used, another build: [^ ]*/other/workload (ELF, debug id" "$T/err"
# A wrong build id: the binary is not used, the frames stay addresses.
sed 's/"codeId": "[0-9a-f]*"/"codeId": "deadbeef"/' "$T/unsym.json" >"$T/wrongid.json"
expect_exit 0 pd show -f json --symbols "$T/bin" "$T/wrongid.json"
expect_grep "unsymbolicated" "$T/err"

# samply's sidecar, written from the documented layout, next to the profile.
mkdir -p "$T/side"
cp "$T/unsym.json" "$T/side/profile.json"
python3 - "$T/nm.txt" "$T/side/profile.syms.json" <<'PY'
import json, sys
syms = {}
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) == 3 and p[1] in "tT":
        syms.setdefault(p[2].split(".")[0], int(p[0], 16))
names = ["main", "process_batch", "parse_record", "hash_key", "sort_bucket"]
side = {"string_table": ["UNKNOWN"] + names,
        "data": [{"debug_name": "workload",
                  "debug_id": "00112233-4455-6677-8899-aabbccddeeff",
                  "code_id": "",
                  "symbol_table": [{"rva": syms[n], "size": 16, "symbol": i + 1}
                                   for i, n in enumerate(names)],
                  "known_addresses": sorted([[syms[n] + 3, i] for i, n in enumerate(names)])}]}
json.dump(side, open(sys.argv[2], "w"))
PY
expect_exit 0 pd show -f json "$T/side/profile.json"
expect_grep '"function":."parse_record"' "$T/out"
expect_grep "symbols from .*profile.syms.json" "$T/err"
# The keys in another order (samply's writer may change it; the reader
# streams and must not care): data before string_table, known_addresses
# before symbol_table, unknown keys and non-string table entries between.
python3 - "$T/side/profile.syms.json" "$T/side2.syms.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
lib = d["data"][0]
lib2 = {"known_addresses": lib["known_addresses"], "extra": {"a": [1, [2]]},
        "symbol_table": lib["symbol_table"], "debug_id": lib["debug_id"],
        "debug_name": lib["debug_name"]}
# a string table entry that is a number keeps its index (it names nothing)
st = d["string_table"]
out = '{"version": 3, "data": [%s], "string_table": %s}' % (
    json.dumps(lib2), json.dumps(st))
open(sys.argv[2], "w").write(out)
PY
mkdir -p "$T/side2" && cp "$T/side/profile.json" "$T/side2/profile.json"
cp "$T/side2.syms.json" "$T/side2/profile.syms.json"
expect_exit 0 pd show -f json "$T/side2/profile.json"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "sidecar keys in another order"; fi
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: x["self"] for x in d["functions"]}
assert f == {"parse_record": 10e6, "hash_key": 5e6, "sort_bucket": 2e6,
             "process_batch": 1e6, "main": 0}, f
PY
# String table entries that are an object or an array keep their index
# and name nothing: the reader once copied from no string for them (a
# fuzz input, undefined behaviour the sanitizer build stops on).
python3 - "$T/side2.syms.json" "$T/side2/profile.syms.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["string_table"] += [{"": ""}, [1, {"a": 2}], {}]
json.dump(d, open(sys.argv[2], "w"))
PY
expect_exit 0 pd show -f json "$T/side2/profile.json"
expect_grep '"function":."parse_record"' "$T/out"
# A sidecar cut short is a note naming its byte; the frames stay addresses.
head -c 200 "$T/side2.syms.json" >"$T/side2/profile.syms.json"
expect_exit 0 pd show -f json "$T/side2/profile.json"
expect_grep "profile.syms.json: byte [0-9]*.*truncated JSON" "$T/err"
expect_grep "workload+0x" "$T/out"
# Addresses no integer holds (negative, 1e300) are left out, not cast:
# the cast is undefined (the sanitizer build aborts on it).
python3 - "$T/side/profile.syms.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["data"][0]["known_addresses"] = [[-5, 0], [1e300, 1]] + d["data"][0]["known_addresses"]
d["data"][0]["symbol_table"].append({"rva": 1, "size": 1, "symbol": -1e300})
d["data"][0]["known_addresses"].append([7, len(d["data"][0]["symbol_table"]) - 1])
json.dump(d, open(sys.argv[1], "w"))
PY
expect_exit 0 pd show -f json "$T/side/profile.json"
expect_grep '"function":."parse_record"' "$T/out"

# Malformed input: one line, exit 2.
bad() { # bad NAME PYTHON-EDIT WANT
	python3 - "$T/unsym.json" "$T/$1.json" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = d["threads"][0]
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
	expect_exit 2 pd show "$T/$1.json"
	expect_lines 1 "$T/err"
	expect_grep "$3" "$T/err"
}
bad newer 'd["meta"]["preprocessedProfileVersion"] = 99' "99 is newer than this perfdiff reads"
bad nostack 'del t["stackTable"]' "no stackTable"
bad stackrange 't["samples"]["stack"][0] = 77' "samples.stack\[0\] = 77 is out of range"
bad framerange 't["stackTable"]["frame"][2] = 50' "stackTable row 2 points to frame 50"
bad funcrange 't["frameTable"]["func"][1] = 9' "frameTable row 1 names a func out of range"
bad librange 't["resourceTable"]["lib"][0] = 4' "names a lib out of range"
# Indices and weights are refused where they are, by JSON path: a
# negative or fractional index or a string is no index (it was read as
# null, or as a root, or rounded), a negative weight no weight (it took
# from the total); weights summed as they stream (after the stacks, as
# samply writes them) or stored (before them) alike.
P='\$\.threads\[0\]\.'
bad stackneg 't["samples"]["stack"][1] = -1' "${P}samples\.stack\[1\]: not an index (an integer from 0, or null)"
bad stackfrac 't["samples"]["stack"][2] = 1.5' "${P}samples\.stack\[2\]: not an index"
bad stackstr 't["samples"]["stack"][1] = "0"' "${P}samples\.stack\[1\]: an index is a number, not a string"
bad prefixneg 't["stackTable"]["prefix"][1] = -5' "${P}stackTable\.prefix\[1\]: not an index"
bad prefixfrac 't["stackTable"]["prefix"][1] = 0.5' "${P}stackTable\.prefix\[1\]: not an index"
bad prefixstr 't["stackTable"]["prefix"][1] = "0"' "${P}stackTable\.prefix\[1\]: an index is a number, not a string"
bad weightneg 't["samples"]["weight"] = [1] * len(t["samples"]["stack"]); t["samples"]["weight"][1] = -5' "${P}samples\.weight\[1\]: a negative weight"
bad weightfirst 'w = [1] * len(t["samples"]["stack"]); w[2] = -5; t["samples"] = {"weight": w, **{k: v for k, v in t["samples"].items() if k != "weight"}}' "${P}samples\.weight\[2\]: a negative weight"
if corpus_part "the Gecko table check"; then
	# Gecko tables whose data comes before their schema are checked when the
	# stacks are resolved: a prefix of -5 is no root
	python3 - "$PD_CORPUS/firefox-gecko/gecko-v13-firefox-with-subprocess.json" "$T/gecko-prefix.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
st = d["threads"][0]["stackTable"]
assert list(st) == ["data", "schema"], list(st)
st["data"][1][st["schema"]["prefix"]] = -5
json.dump(d, open(sys.argv[2], "w"))
PY
	expect_exit 2 pd show "$T/gecko-prefix.json"
	expect_lines 1 "$T/err"
	expect_grep 'gecko-prefix.json: thread "GeckoMain": stackTable.prefix\[1\] = -5 is not an index' "$T/err"
	# a frame address of 5.43203e25 (a fuzz input's): no 64-bit address,
	# refused in one line naming the thread and the row (it was cast to
	# unsigned long long, undefined)
	expect_exit 2 pd show "$PD_ROOT/fixtures/regress/firefox-address-past-2e64.json"
	expect_lines 1 "$T/err"
	expect_grep 'thread "main": frameTable row 1 has an address of 2^64 or more' "$T/err"
	# indices of 1e30 and 1e300: past their tables, read as null
	expect_exit 0 pd show "$PD_ROOT/fixtures/regress/firefox-index-1e30.json"
	expect_grep 'firefox, 7 samples, total 7.000 ms' "$T/out"
	# a library mapped from -1, or at a file offset of 1e30: no address
	# falls in it (the offset was cast to an integer it does not fit, an
	# undefined behaviour UBSan stops at), the frames keep their hex
	for lib in '"start": -1' '"offset": 1e30'; do
		python3 - "$PD_CORPUS/firefox-gecko/gecko-v13-firefox-with-subprocess.json" "$T/gecko-lib.json" "{$lib}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["libs"][0].update(json.loads(sys.argv[3]))
json.dump(d, open(sys.argv[2], "w"))
PY
		expect_exit 0 pd show "$T/gecko-lib.json"
		expect_no_grep '^ .*  firefox+0x' "$T/out"
		expect_grep 'firefox-webcontent+0xf84' "$T/out"
	done
fi
# A huge stack index among weights that stream by after the stacks: the
# sums per stack must not grow to it before the index can be checked (it
# took 7 GB and 19 s).
python3 - "$T/unsym.json" "$T/stackhuge.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["threads"][0]["samples"]
s["stack"][1] = 900000000
s["weight"] = [1] * s["length"]
json.dump(d, open(sys.argv[2], "w"))
PY
expect_exit 2 with_timeout 5 "$PERFDIFF" show "$T/stackhuge.json"
expect_grep "samples.stack\[1\] = 9e+08 is out of range" "$T/err"

# Weights and CPU deltas are summed per stack as they stream when the
# stack column came first (samply's order), stored and summed after when
# it came last: both orders, and fractional or huge values that do not
# fit the compact columns, give the numbers counted here by hand.
python3 - "$T/unsym.json" "$T" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = d["threads"][0]
n = len(t["samples"]["stack"])
t["samples"]["weight"] = [1.5 if i % 3 == 0 else (None if i % 3 == 1 else 2) for i in range(n)]
t["samples"]["threadCPUDelta"] = [(i * 7) % 11 + (0.25 if i == 5 else 0) for i in range(n)]
if n > 6:
    t["samples"]["threadCPUDelta"][6] = 5e9  # past 32 bits
t["samples"]["weightType"] = "samples"
s = t["samples"]
first = {"stack": s["stack"], "weight": s["weight"], "threadCPUDelta": s["threadCPUDelta"],
         "length": n, "weightType": "samples"}
last = {"weightType": "samples", "weight": s["weight"], "threadCPUDelta": s["threadCPUDelta"],
        "length": n, "stack": s["stack"]}
for name, sm in (("first", first), ("last", last)):
    t["samples"] = sm
    json.dump(d, open("%s/order-%s.json" % (sys.argv[2], name), "w"))
# by hand: CPU time in µs (the unit), the first delta left out
cpu = sum(c for i, c in enumerate(s["threadCPUDelta"]) if i and c > 0)
wall = sum(1 if w is None else w for w in s["weight"])
json.dump({"cpu_ns": cpu * 1000, "weights": wall},
          open(sys.argv[2] + "/order-want.json", "w"))
PY
for o in first last; do
	expect_exit 0 pd show -f json --weight cpu "$T/order-$o.json"
	cp "$T/out" "$T/order-$o.out"
done
same_numbers() { # the functions and totals of two show -f json outputs
	python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["functions"] == b["functions"]
assert (a["profile"]["total"], a["profile"]["samples"]) == (b["profile"]["total"], b["profile"]["samples"])
PY
}
if same_numbers "$T/order-first.out" "$T/order-last.out"; then ok; else not_ok "column order changed the numbers"; fi
if python3 - "$T/order-first.out" "$T/order-want.json" <<'PY'; then ok; else not_ok "folded CPU time"; fi
import json, sys
p = json.load(open(sys.argv[1]))["profile"]
want = json.load(open(sys.argv[2]))
assert abs(p["total"] - want["cpu_ns"]) <= 1e-9 * want["cpu_ns"], (p["total"], want)
PY
expect_exit 0 pd show -f json --weight wall "$T/order-last.json"
cp "$T/out" "$T/wall-last.out"
expect_exit 0 pd show -f json --weight wall "$T/order-first.json"
if same_numbers "$T/out" "$T/wall-last.out"; then ok; else not_ok "column order changed wall-clock weights"; fi
if python3 - "$T/out" "$T/order-want.json" <<'PY'; then ok; else not_ok "folded weights"; fi
import json, sys
d = json.load(open(sys.argv[1]))
want = json.load(open(sys.argv[2]))
assert abs(d["profile"]["samples"] - want["weights"]) < 1e-9, (d["profile"], want)
PY
printf '{"meta": {"interval": 1, "preprocessedProfileVersion": 49}, "threads": [{"samples": {"stack": [0' >"$T/trunc.json"
expect_exit 2 pd show "$T/trunc.json"
expect_grep "truncated JSON" "$T/err"

# The weight rule is the profile's: a thread of one sample (no CPU delta
# to give) does not switch a CPU-time profile to wall clock. 10 samples
# with 500 µs deltas, the first of which means nothing: 9 x 500 µs.
wspec() { # NAME EXTRA-THREADS
	cat >"$T/$1.spec" <<EOF
{"lib": {"name": "app", "path": "/app", "debugName": "app", "debugPath": "/app",
         "breakpadId": "", "codeId": "", "arch": "x86_64"},
 "frames": {"main": 4096, "work": 8192},
 "stacks": [[["main", "work"], 8], [["main"], 2]], "cpu": 500,
 "extra_threads": $2}
EOF
	python3 "$PD_ROOT/tests/tools/samply_make.py" "$T/$1.spec" "$T/$1.json"
}
wspec onesample '[["idle", 1, false]]'
wspec nocpu '[["io", 5, false]]'
for w in "" "--weight cpu"; do
	# shellcheck disable=SC2086
	expect_exit 0 pd show -f json $w "$T/onesample.json"
	if python3 - "$T/out" <<'PY'; then ok; else not_ok "one-sample thread switched the weight rule ($w)"; fi
import json, sys
p = json.load(open(sys.argv[1]))["profile"]
assert p["total"] == 4.5e6, p["total"]
assert p["count_rule"].startswith("weights = CPU time"), p["count_rule"]
PY
done
# A thread of five samples without CPU time: wall clock for all, said so;
# asked for CPU time, one line and exit 2.
expect_exit 0 pd show -f json "$T/nocpu.json"
expect_grep "some threads have no CPU deltas: using wall-clock" "$T/err"
expect_grep '"total":.15000000,' "$T/out"
expect_exit 2 pd show --weight cpu "$T/nocpu.json"
expect_lines 1 "$T/err"
expect_grep 'nocpu.json: --weight cpu: thread "io" has no CPU time' "$T/err"
# Two sides weighed by different rules: the diff says so.
expect_exit 0 pd "$T/onesample.json" "$T/nocpu.json"
expect_grep "the profiles weigh samples differently" "$T/err"

# --weight both: CPU time, and each stack's time beyond it as its
# function's waiting. Four samples at 0, 1, 11 and 12 ms, the third in
# read() (libc) under read_file with 200 us of CPU, the others in work
# with 1 ms each; the first sample's delta is left out. By hand: CPU
# 1 + 0.2 + 1 = 2.2 ms, waiting 10 - 0.2 = 9.8 ms, read_file's, not
# libc's: 12 ms in all, the thread's time from its first sample to its
# last.
cat >"$T/both.spec" <<'J'
{"lib": {"name": "app", "path": "/app", "debugName": "app", "debugPath": "/app",
         "breakpadId": "", "codeId": "", "arch": "x86_64"},
 "more_libs": [{"name": "libc.so.6", "path": "/lib/libc.so.6", "debugName": "libc.so.6",
                "debugPath": "/lib/libc.so.6", "breakpadId": "", "codeId": "", "arch": "x86_64"}],
 "frames": {"main": 4096, "work": 8192, "read_file": 12288, "read": [256, 1]},
 "stacks": [[["main", "work"], 3], [["main", "read_file", "read"], 1]], "cpu": 1000}
J
python3 "$PD_ROOT/tests/tools/samply_make.py" "$T/both.spec" "$T/both0.json" &&
	python3 - "$T/both0.json" "$T/both.json" <<'PY' || not_ok "writing the --weight both profile"
import json, sys
d = json.load(open(sys.argv[1]))
s = d["threads"][0]["samples"]
assert s["stack"] == [1, 1, 3, 1], s["stack"]  # work, work, read, work
s["time"] = [0.0, 1.0, 11.0, 12.0]
s["threadCPUDelta"] = [1000, 1000, 200, 1000]
json.dump(d, open(sys.argv[2], "w"))
PY
expect_exit 0 pd show --weight both "$T/both.json"
expect_grep "total 12.000 ms" "$T/out"
expect_grep "9.800  81.67%        9.800  81.67%  app+0x3002 (waiting) \[app\]" "$T/out"
expect_grep "2.000  16.67%        2.000  16.67%  app+0x2002 \[app\]" "$T/out"
expect_grep "0.200   1.67%        0.200   1.67%  libc.so.6+0x102 \[libc.so.6\]" "$T/out"
expect_no_grep "libc.so.6+0x102 (waiting)" "$T/out"
expect_exit 0 pd show --weight cpu "$T/both.json"
expect_grep "total 2.200 ms" "$T/out"
expect_exit 2 pd show --weight both "$T/nocpu.json"
expect_grep 'nocpu.json: --weight both: thread "io" has no CPU time' "$T/err"

if corpus_part "the samply waiting checks"; then
	# On samply's real profiles each thread's waiting is its time beyond its
	# CPU as a reading apart from perfdiff finds it (tests/tools/ff_waits.py),
	# to the nanosecond: the Linux profile of 48 threads waits 849.3 ms
	# beside 474.5 ms of CPU.
	for f in "$FP"/samply-*.json "$FP"/samply-*.json.gz; do
		pd show --weight both -f json "$f" >"$T/ours.json" 2>/dev/null
		python3 "$PD_ROOT/tests/tools/ff_waits.py" "$f" >"$T/ref.json"
		if python3 - "$T/ours.json" "$T/ref.json" <<'PY'
import json, sys
ours, ref = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
waited = sum(f["self"] for f in ours["functions"]
             if f["function"].endswith(" (waiting)"))
assert abs(waited - ref["waiting"]) <= 1e-6 * max(1, ref["waiting"]), (waited, ref["waiting"])
total = ref["cpu"] + ref["waiting"]
assert abs(ours["profile"]["total"] - total) <= 1e-6 * total, (ours["profile"]["total"], total)
PY
		then ok; else not_ok "waiting of $f"; fi
		# by default, CPU time, and one line says what waiting is
		# left out: the same reading's
		pd show -f json "$f" >"$T/cpu.json" 2>/dev/null
		if python3 - "$T/cpu.json" "$T/ref.json" <<'PY'
import json, re, sys
ours, ref = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
said = [w for w in ours["warnings"] if "of waiting beside" in w]
if not ours["profile"]["count_rule"].startswith("weights = CPU time") or ref["waiting"] < 0.01 * ref["cpu"]:
    assert not said, said
else:
    m = re.search(r"([0-9.]+) ms of waiting beside ([0-9.]+) ms of CPU time .* is not compared; --weight both compares it too", said[0])
    assert abs(float(m.group(1)) - ref["waiting"] / 1e6) <= 0.06, (m.group(1), ref["waiting"])
    assert abs(float(m.group(2)) - ref["cpu"] / 1e6) <= 0.06, (m.group(2), ref["cpu"])
PY
		then ok; else not_ok "the waiting $f leaves out by default"; fi
	done
	pd show --weight both -f json "$FP/samply-linux-v55-48threads.json.gz" >"$T/ours.json" 2>/dev/null
	if python3 - "$T/ours.json" <<'PY'; then ok; else not_ok "the 48 threads' waiting"; fi
import json, sys
d = json.load(open(sys.argv[1]))
waited = sum(f["self"] for f in d["functions"] if f["function"].endswith(" (waiting)"))
assert abs(waited / 1e6 - 849.31) < 0.01, waited
assert abs(d["profile"]["total"] / 1e6 - 1323.76) < 0.01, d["profile"]["total"]
PY
fi
finish
