#!/bin/sh
# A short history (nine commits of three runs) with a clean +26 % step in
# parse_record, counts of about 1300 samples a run (0.65 s at 1999 Hz)
# that move by sampling and by a percent from night to night: a change
# point at the step, in parse_record and in the total. The same step on
# the two newest commits has not held yet: the report says what it needs
# rather than "steady"; so does a history too short for any change point.
. "$(dirname "$0")/lib.sh"
history_db h
# $1 scenario, $2 first commit with the step, $3 the noise's seed
make_history() {
	python3 - "$T" "$1" "$2" "$3" <<'PY'
import json, math, os, random, sys
root, scen, at = sys.argv[1], sys.argv[2], int(sys.argv[3])
rnd = random.Random(sys.argv[4])
def count(lam):  # a sample count: Poisson, by its normal approximation
    return max(0, round(rnd.gauss(lam, math.sqrt(lam))))
for c in range(1, 10):
    b = os.path.join(root, "%s%d" % (scen, c))
    os.makedirs(os.path.join(b, "profiles"))
    json.dump({"git_sha": "%02d" % c + "c" * 38, "scenario": scen,
               "cache": "warm",
               "commit_date": "2026-06-%02dT00:00:00Z" % c},
              open(os.path.join(b, "build_meta.json"), "w"))
    night = math.exp(rnd.gauss(0, 0.01))
    for r in range(1, 4):
        f = 0.65 * 1999 * night * math.exp(rnd.gauss(0, 0.01))
        with open(os.path.join(b, "profiles", "run.%d.folded" % r), "w") as o:
            o.write("main;parse_record %d\n" % count(0.8 * f * (1.26 if c >= at else 1)))
            o.write("main;read_input %d\n" % count(0.2 * f))
PY
}
# (a history the commit means' Welch t, Bonferroni-corrected, called
# steady, as it did about one in six of these)
make_history st 7 s3
expect_exit 0 pd ingest "$T"/st[1-9]
expect_exit 1 pd trend --scenario st
expect_grep "^ALERT st/warm: total +2[0-9.]* % at 07cccccccc, from parse_record +2[0-9.]* %" "$T/out"
expect_exit 1 pd trend --scenario st -f json
if python3 - "$T/out" "07$(printf 'c%.0s' $(seq 38))" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = {x["name"]: x for x in d["series"]}
for n in ("total", "parse_record"):
    cp = s[n]["change_points"]
    assert len(cp) == 1 and cp[0]["sha"] == sys.argv[2], (n, cp)
    assert cp[0]["p"] <= 0.001, cp
assert d["pending"] == [] and d["too_short"] is None, d
PY
then ok; else not_ok "the short history's step"; fi

# the step on the two newest commits only
make_history nw 8 nw
expect_exit 0 pd ingest "$T"/nw[1-9]
expect_exit 0 pd trend --scenario nw
expect_no_grep "is steady$" "$T/out"
expect_grep "^no change points: nw/warm is steady but for its newest commits" "$T/out"
expect_grep "^WATCH parse_record +2[0-9.]* % from 08cccccccc (2 of 3 commits; too new to test: 1 more commit will tell): not yet a change point" "$T/out"
expect_exit 0 pd trend --scenario nw -f json
if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = {x["series"]: x for x in d["pending"]}["parse_record"]
assert p["index"] == 7 and p["commits"] == 2 and p["needs"] == 3, p
assert d["alerts"] == [] and d["watch"] == [], d' "$T/out"; then ok; else not_ok "pending in JSON"; fi

# four commits: too few for any change point, and it says how many more
expect_exit 0 pd trend --scenario st --last 4
expect_grep "cannot detect change points with 4 commits and 12 runs in all: with --p 0.001 the permutation test needs at least 14 runs (commits, or repeats of them), and a change point needs 5 commits (2 before it, 3 from it on): 1 more commit of 3 runs; st/warm is not known to be steady" "$T/out"
expect_exit 0 pd trend --scenario st --last 4 -f json
if python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["too_short"]
assert t == {"runs": 12, "runs_needed": 14, "commits": 4, "commits_needed": 5, "more_commits": 1, "runs_a_commit": 3}, t' "$T/out"; then ok; else not_ok "too_short in JSON"; fi
expect_exit 1 pd culprit --scenario st --last 4
expect_grep "^no change point in st/warm over 4 commits (too few to tell: 1 more commit of 3 runs)" "$T/out"
# the site's index says the same: no "steady" for either
expect_exit 0 pd site "$T/site"
if python3 - "$T/site/index.html" <<'PY'
import re, sys
rows = re.findall(r"<tr>.*?</tr>", open(sys.argv[1]).read(), re.S)
nw = [r for r in rows if "nw--warm" in r]
assert nw and "steady</span> but for the newest commits" in nw[0], nw
PY
then ok; else not_ok "the site's verdict of a pending step"; fi
finish
