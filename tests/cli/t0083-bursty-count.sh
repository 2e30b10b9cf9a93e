#!/bin/sh
# Bursts whose number varies from run to run: fixtures/workload/bursty.c's
# shape, written out so that the numbers are fixed. Every round a steady
# function takes 4 or 5 samples, and after a round drawn with chance 1 in
# 50 a collector takes 58 samples in one go; one run drew 15 bursts, the
# other 7 (a pair seen on real recordings of that program): 870 and 406
# collector samples. The verdict no longer looks at the time blocks
# (their scatter within a run did not predict how counts vary between
# runs on real programs): the same samples without times give the same
# report, word for word, both ways round, and with 40 steady functions
# whose shares differ between the runs (the pair's own dispersion,
# lambda, estimated from them).
. "$(dirname "$0")/lib.sh"

mkdir "$T/timed" "$T/untimed"
python3 - "$T" <<'PY'
import random, sys
d = sys.argv[1]

def bursts(seed):
    r = random.Random(seed)
    return {k for k in range(400) if r.random() < 0.02}

def write(name, at, steady, timed=True):
    """perf script text: each of 400 rounds the functions steady(round)
    names, then 58 collector samples after a round in at; 0.5 ms apart."""
    i = 0
    with open(f"{d}/{name}", "w") as f:
        def sample(fn):
            nonlocal i
            us = i * 500 + 7
            t = "%d.%06d:" % (100 + us // 1000000, us % 1000000) if timed else ""
            f.write("bursty  42 %s     500000 cpu-clock:pppH: \n" % t)
            f.write("\t            11fb %s+0x2b (/opt/app/bursty)\n" % fn)
            f.write("\t            1092 main+0x32 (/opt/app/bursty)\n\n")
            i += 1
        for rnd in range(400):
            for fn in steady(rnd):
                sample(fn)
            if rnd in at:
                for _ in range(58):
                    sample("collect")

# seeds 118 and 119 draw 15 and 7 bursts
a, b = bursts(118), bursts(119)
assert (len(a), len(b)) == (15, 7), (len(a), len(b))
work = lambda rnd: ["work"] * (4 if rnd % 3 else 5)
for timed in (True, False):
    x = "timed" if timed else "untimed"
    write(f"{x}/many.txt", a, work, timed)
    write(f"{x}/few.txt", b, work, timed)

    # The same with 40 steady functions whose shares differ between the
    # two runs by up to a quarter either way.
    def wide(seed):
        r = random.Random(seed)
        w = [r.uniform(0.75, 1.25) for _ in range(40)]
        return lambda rnd: ["work%02d" % k for k in range(40)
                            if r.random() < 0.3 * w[k]]
    write(f"{x}/many-wide.txt", a, wide(1), timed)
    write(f"{x}/few-wide.txt", b, wide(2), timed)
PY

for pair in "many few" "few many" "many-wide few-wide" "few-wide many-wide"; do
	set -- $pair
	for x in timed untimed; do
		cd "$T/$x" || exit 1
		pd -f json "$1.txt" "$2.txt" >"$T/$x.json" 2>"$T/$x.err"
		echo "exit $?" >"$T/$x.rc"
		pd "$1.txt" "$2.txt" >"$T/$x.txt" 2>&1
	done
	cd "$T" || exit 1
	if cmp -s timed.json untimed.json && cmp -s timed.txt untimed.txt &&
		cmp -s timed.rc untimed.rc; then ok; else
		not_ok "$1 against $2: times change the report: $(diff timed.txt untimed.txt | head -5)"
	fi
	expect_no_grep "bursty: " timed.txt
	if python3 - timed.json "$1" <<'PY'; then ok; else not_ok "$1 against $2: counts"; fi
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: x for x in d["functions"]}
g = f["collect"]["self"]
# 15 bursts of 58 against 7
want = (870, 406) if sys.argv[2].startswith("many") else (406, 870)
assert (g["baseline_samples"], g["candidate_samples"]) == want, g
if "wide" in sys.argv[2]:
    lam = d["dispersion"]["lambda"]
    assert lam is not None and lam > 1.5, d["dispersion"]
PY
done
finish
