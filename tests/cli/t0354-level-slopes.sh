#!/bin/sh
# How a function follows its run's level, learned from history
# (docs/statistics.md, "How a function follows the machine"): nine
# functions move fully with the machine (10000 e^l samples in a run at
# level l), f9 half as much (10000 e^(l/2)). The history has three runs a
# commit at levels -0.3, 0 and +0.3 (+0.05 every other commit); the two
# compared commits' runs lie at -0.2 and +0.2 (the candidate's machine
# 40 % slower), nothing changed; a function of one sample a run makes
# the counts share no divisor. Without history, beyond the runs' full
# levels, f9 reads 18 % faster; with it, f9 is the same, within 1 %.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 not installed: skipped"; exit 77; }
history_db h
# f9_is FILE STATUS: f9's self status in a JSON report, its delta within
# 1 % when the status is "same"
f9_is() {
	python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = [f for f in d["functions"] if f["function"] == "f9"][0]["self"]
assert f["status"] == sys.argv[2], f
assert sys.argv[2] != "same" or abs(f["delta_pct"]) < 1, f
PY
}
tail=cccccccccccccccccccccccccccccccccccccc
# folded FILE COMMIT RUN: run RUN of commit COMMIT at its level
folded() {
	python3 - "$1" "$2" "$3" <<'PY'
import math, sys
c, r = int(sys.argv[2]), int(sys.argv[3])
if c in (1, 7):
    l = (-0.2 if c == 1 else 0.2) + 0.05 * (r - 1)
else:
    l = 0.3 * (r - 1) + 0.05 * (c % 2)
with open(sys.argv[1], "w") as f:
    for i in range(10):
        f.write("main;f%d %d\n" % (i, round(10000 * math.exp((1 if i < 9 else 0.5) * l))))
    # one sample apart: the counts share no divisor, so one sample
    # weighs 1 (docs/formats.md, "Folded stacks")
    f.write("main;tiny 1\n")
PY
}
for c in 1 2 3 4 5 6 7; do
	b=$T/b$c
	mkdir -p "$b/profiles"
	printf '{"git_sha": "%02d%s", "scenario": "s", "cache": "warm", "commit_date": "2026-03-%02dT00:00:00Z"}\n' \
		"$c" "$tail" "$c" >"$b/build_meta.json"
	for r in 0 1 2; do
		folded "$b/profiles/run.$r.folded" "$c" "$r"
	done
done
expect_exit 0 pd ingest "$T"/b1 "$T"/b2 "$T"/b3 "$T"/b4 "$T"/b5 "$T"/b6 "$T"/b7
# the files alone: f9 judged beyond the full levels reads faster
set -- $(ls "$T"/b1/profiles/*.folded | sed 's/^/-b /') $(ls "$T"/b7/profiles/*.folded | sed 's/^/-c /')
expect_exit 0 pd -f json "$@"
f9_is "$T/out" improved && ok || not_ok "f9 beyond the full levels"
# against the history: f9 the same, and the settings say why
expect_exit 0 pd compare -f json "01$tail" "07$tail" --scenario s
f9_is "$T/out" same && ok || not_ok "f9 beyond its learned slope"
expect_exit 0 pd compare "01$tail" "07$tail" --scenario s
expect_grep "prior from history), Mann–Whitney as a check; 11 functions taken beyond how far each follows its run's level" "$T/out"
# the same commits with two runs each, scenario s2: the five commits
# between the compared two hold 5 repeats, too few for a slope (7), and
# the settings line says so and what would do
for c in 1 2 3 4 5 6 7; do
	b=$T/two$c
	mkdir -p "$b/profiles"
	printf '{"git_sha": "%02d%s", "scenario": "s2", "cache": "warm", "commit_date": "2026-03-%02dT00:00:00Z"}\n' \
		"$c" "$tail" "$c" >"$b/build_meta.json"
	cp "$T/b$c/profiles/run.0.folded" "$T/b$c/profiles/run.1.folded" "$b/profiles/"
done
expect_exit 0 pd ingest "$T"/two1 "$T"/two2 "$T"/two3 "$T"/two4 "$T"/two5 "$T"/two6 "$T"/two7
expect_exit 0 pd compare "01$tail" "07$tail" --scenario s2
expect_grep "over 2 + 2 runs (prior from history), Mann–Whitney as a check; the history's window has 5 repeats within commits, too few to learn how each function follows its run's level (7 needed: 3 runs a commit, or more commits)" "$T/out"
expect_no_grep "taken beyond how far" "$T/out"
finish
