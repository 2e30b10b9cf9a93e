#!/bin/sh
# speedscope events read by the importer's own scanner (the plain ones) and
# by yajl (any other shape), handing over in both directions in one array
# and across 1 MiB pieces: the functions' times equal a replay of the
# events done here, and equal those of the same events written plainly.
# A comma before "]" is a syntax error at its byte, as yajl would say.
. "$(dirname "$0")/lib.sh"
python3 - "$T" <<'PY'
import json, random, sys
d = sys.argv[1]
rng = random.Random(48)
NF = 12
frames = [{"name": "f%02d" % i} for i in range(NF)]

def plain(t, f, at):
    return '{"type":"%s","frame":%d,"at":%s}' % (t, f, at)

def odd(t, f, at, k):
    # shapes the scanner leaves to yajl, each meaning the same event
    return [
        '{"type":"%s","frame":%d,"at":%s,"extra":[1,{"a":2}]}' % (t, f, at),
        '{"ty\\u0070e":"%s","frame":%d,"at":%s}' % (t, f, at),
        '{"type":"%s","frame":%d.0,"at":%s}' % (t, f, at),
        '{"at":%s,"frame":%d,"type":"%s","at":%s}' % ("0", f, t, at),
        '{ "at" :\n %s ,\t"type" : "%s" , "frame" : %d }' % (at, t, f),
    ][k]

events, t, stack = [], 0, []
self_w, total_w = [0] * NF, [0] * NF
while len(events) < 120000 or stack:
    dt = rng.choice([0, 1, 2, 5, 125])  # microseconds
    if stack and dt:  # the time since the last event: the open stack's
        self_w[stack[-1]] += dt
        for g in stack:
            total_w[g] += dt
    t += dt
    if stack and (len(stack) > 6 or rng.random() < 0.45 or
                  len(events) >= 120000):
        f, kind = stack.pop(), "C"
    else:
        f = rng.choice([x for x in range(NF) if x not in stack])
        kind = "O"
        stack.append(f)
    events.append((kind, f, "%d.%03d" % divmod(t, 1000)))

def doc(evs, sep):
    return ('{"$schema":"https://www.speedscope.app/file-format-schema.json",'
            '"shared":{"frames":' + json.dumps(frames) + '},"profiles":['
            '{"type":"evented","name":"p","unit":"milliseconds",'
            '"startValue":0,"endValue":%s,"events":[' % events[-1][2] +
            sep.join(evs) + ']}]}')

open(d + "/plain.json", "w").write(
    doc([plain(*e) for e in events], ","))
mixed = [odd(*e, k=rng.randrange(5)) if rng.random() < 0.3 else plain(*e)
         for e in events]
# runs of odd events and of plain ones, some long: the hand-over goes
# both ways many times, and pieces end inside either kind
open(d + "/mixed.json", "w").write(doc(mixed, rng.choice([",", ", "])))
assert len(open(d + "/mixed.json").read()) > 3 << 20
json.dump({"self": self_w, "total": total_w}, open(d + "/want.json", "w"))
text = doc([plain(*e) for e in events[:2000]], ",")
at = text.index("]}]}")
open(d + "/comma.json", "w").write(text[:at] + ", " + text[at:])
open(d + "/comma.at", "w").write(str(at + 2))
PY

check_times() {
	if python3 - "$1" "$T/want.json" <<'PY'; then ok; else not_ok "$2"; fi
import json, sys
p = json.load(open(sys.argv[1]))
want = json.load(open(sys.argv[2]))
got = {f["function"]: f for f in p["functions"]}
for i in range(len(want["self"])):
    f = got["f%02d" % i]
    # milliseconds read, nanoseconds kept: microseconds * 1000
    for k in ("self", "total"):
        w = want[k][i] * 1000
        assert abs(f[k] - w) <= 1e-6 * max(w, 1), (i, k, f[k], w)
PY
}

expect_exit 0 pd show -f json "$T/plain.json"
cp "$T/out" "$T/plain.out"
check_times "$T/plain.out" "plain events: times differ from the replay"
expect_exit 0 pd show -f json "$T/mixed.json"
check_times "$T/out" "mixed events: times differ from the replay"
gzip -c "$T/mixed.json" >"$T/mixed.json.gz"
expect_exit 0 pd show -f json "$T/mixed.json.gz"
check_times "$T/out" "mixed events, gzip: times differ from the replay"

# the same events written plainly and oddly: the same profile
# (but for the file's name on the first line and in the warning that the
# sampling rate is assumed)
expect_exit 0 pd show "$T/plain.json"
tail -n +2 "$T/out" | grep -v '^warning: .*: an evented profile says nothing of its sampling rate' >"$T/plain.txt"
expect_grep "^warning: .*plain.json: an evented profile says nothing of its sampling rate: its durations are counted as samples of 1 ms; if it was recorded at another rate, pass --interval MS" "$T/out"
expect_exit 0 pd show "$T/mixed.json"
if tail -n +2 "$T/out" | grep -v '^warning: .*: an evented profile says nothing' | cmp -s - "$T/plain.txt"; then ok; else
	not_ok "mixed and plain events read differently"
fi

# Thousands of small arrays in one piece: yajl stops after each "[", and
# the read stays linear (it moved the rest of the piece each time: a
# million arrays took 9 s). Not under valgrind, which is slower anyway.
if [ -z "$PD_WRAP" ]; then
	python3 -c '
import sys
sys.stdout.write("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{\"frames\":[{\"name\":\"a\"}]},\"x\":{"
    + ",".join("\"k%d\":[1,2]" % i for i in range(2000000))
    + "},\"profiles\":[{\"type\":\"sampled\",\"name\":\"p\",\"unit\":\"none\",\"startValue\":0,\"endValue\":1,\"samples\":[[0]],\"weights\":[1]}]}")
' >"$T/arrays.json"
	expect_exit 0 with_timeout 6 "$PERFDIFF" show "$T/arrays.json"
fi

expect_exit 2 pd show "$T/comma.json"
expect_grep "comma.json: byte $(cat "$T/comma.at") at \$.profiles\[0\].events\[1999\]: JSON syntax error" "$T/err"
expect_lines 1 "$T/err"
# A unit outside the format's list ("samples") is read as speedscope
# shows it: the values as counts, with a warning; not a refused file.
cat >"$T/unit.json" <<'X'
{"$schema": "https://www.speedscope.app/file-format-schema.json",
 "shared": {"frames": [{"name": "main"}, {"name": "work"}]},
 "profiles": [{"type": "sampled", "name": "p", "unit": "samples",
   "startValue": 0, "endValue": 3, "samples": [[0, 1], [0]],
   "weights": [2, 1]}]}
X
expect_exit 0 pd show -f json "$T/unit.json"
expect_grep "unit.json: \$.profiles\[0\].unit: \"samples\" is no speedscope unit: its values are read as counts" "$T/err"
python3 - "$T/out" <<'PY' && ok || not_ok "unit samples: $(head -c 300 "$T/out")"
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: (x["self"], x["total"]) for x in d["functions"]}
assert f == {"work": (2, 2), "main": (1, 3)}, f
PY
# A NUL inside a name keeps the name whole (written \x00) and two names
# that differ after it apart.
cat >"$T/nul.json" <<'EOF'
{"$schema": "https://www.speedscope.app/file-format-schema.json",
 "shared": {"frames": [{"name": "nul\u0000x"}, {"name": "nul\u0000y"}]},
 "profiles": [{"type": "sampled", "name": "p", "unit": "milliseconds",
   "startValue": 0, "endValue": 3, "samples": [[0], [1], [1]],
   "weights": [1, 1, 1]}]}
EOF
expect_exit 0 pd show -f json "$T/nul.json"
if python3 - "$T/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: x["self"] for x in d["functions"]}
assert sorted(f) == ["nul\\x00x", "nul\\x00y"], f
assert f["nul\\x00y"] == 2 * f["nul\\x00x"], f
PY
then ok; else not_ok "NUL in a speedscope name"; fi
# TraceEvent's thread frames without a process frame (an export of one
# process): still TraceEvent's, so "Threads" and "Thread (5678)" are no
# functions and "wl!tokenize_line" is tokenize_line of module wl; 10
# events of 3 ms, 2 of them in tokenize_line.
python3 - "$T/te.json" <<'PY'
import json, sys
frames = [{"name": n} for n in ("Threads", "Thread (5678)", "wl!main", "wl!tokenize_line")]
ev, t = [], 0
for i in range(10):
    ev += [{"type": "O", "frame": f, "at": t} for f in range(4)]
    ev += [{"type": "C", "frame": 3, "at": t + 2}]
    ev += [{"type": "C", "frame": f, "at": t + 3} for f in (2, 1, 0)]
    t += 3
json.dump({"$schema": "https://www.speedscope.app/file-format-schema.json",
           "exporter": "wl-export", "shared": {"frames": frames},
           "profiles": [{"type": "evented", "name": "wl.exe", "unit": "milliseconds",
                         "startValue": 0, "endValue": t, "events": ev}]},
          open(sys.argv[1], "w"))
PY
expect_exit 0 pd show -f json "$T/te.json"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "TraceEvent thread frames: $(head -c 400 "$T/out")"; fi
import json, sys
d = json.load(open(sys.argv[1]))
f = {(x["function"], x["module"]): x for x in d["functions"]}
assert set(f) == {("main", "wl"), ("tokenize_line", "wl")}, sorted(f)
assert f[("tokenize_line", "wl")]["self"] == 20e6, f[("tokenize_line", "wl")]
assert f[("main", "wl")]["self"] == 10e6 and f[("main", "wl")]["total"] == 30e6
PY
finish
