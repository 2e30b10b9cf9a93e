#!/bin/sh
# The GitHub Action (scripts/github-action/action.yml, run by
# tests/tools/ci_job.py as the runner runs a composite action) against a
# fake GitHub API on loopback (tests/tools/fake_forge.py), on the demo
# pair, whose parse_record does 40 % more work in the candidate (README):
# - two runs on one pull request make one comment, created by the first
#   (one POST) and updated by the second (one PATCH of that comment, found
#   again on the listing's second page, past another person's comment
#   that quotes the marker), carrying the marker and the report's
#   Markdown; the job summary, the step's outputs (verdict, perfdiff's
#   exit status, the top regression as perf.json has it) and the report
#   folder (HTML, JSON, meta.json) are there; the job fails on the
#   regression unless told not to; a failed comparison (exit 2) fails it
#   and says so in the comment; a token the API refuses (401) fails it;
# - a fork's run, whose token may not comment (403), creates nothing and
#   does not fail for it: the summary and the files are there, and the
#   workflow_run job's `mode: comment` posts them through the same comment,
#   only while the pull request's head is the report's commit;
# - two stored commits (`scenario`) are compared with `perfdiff compare`,
#   a stored commit and a bundle (`db:REV`) with `perfdiff check`;
# - the example workflows use only the action's inputs;
# - without `perfdiff`, the action builds the source with cmake (a stand-in
#   cmake here) and runs what it built.
# What GitHub sends and takes (paths, methods, Link pagination, the
# GITHUB_OUTPUT and event files) is from GitHub's REST and Actions docs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/forge.sh"
D=$PD_ROOT/fixtures/demo
ACTION=$PD_ROOT/scripts/github-action
HEAD=0123456789abcdef0123456789abcdef01234567
forge_start gh --head "$HEAD"

mkdir -p "$T/ws" "$T/tmp"
printf '{"number": 12, "pull_request": {"number": 12, "head": {"sha": "%s"}}}\n' "$HEAD" >"$T/event.json"
export GITHUB_API_URL=http://127.0.0.1:$FORGE_PORT GITHUB_REPOSITORY=acme/app \
	GITHUB_SERVER_URL=https://github.example GITHUB_RUN_ID=77 GITHUB_TOKEN=t0ken \
	GITHUB_EVENT_PATH=$T/event.json GITHUB_STEP_SUMMARY=$T/summary.md \
	GITHUB_SHA=fedcba9876543210fedcba9876543210fedcba98 RUNNER_TEMP=$T/tmp

# action OUTPUTS INPUT=VALUE...: the action in $T/ws
action() {
	a_out=$1
	shift
	(cd "$T/ws" && python3 "$TOOLS/ci_job.py" github-action "$ACTION" "$a_out" "$@")
}
# has FILE LINE: FILE has the line LINE exactly
has() {
	if grep -qxF -e "$2" "$1"; then ok; else not_ok "no line '$2' in $1: $(head -c 600 "$1")"; fi
}

# --- first run: a comment is created; the job fails on the regression
expect_exit 1 action "$T/o1" baseline="$D/base.perf.txt.gz" candidate="$D/cand.perf.txt.gz" perfdiff="$PERFDIFF"
R=$T/ws/perfdiff-report
has "$T/o1" verdict=regressed
has "$T/o1" status=1
has "$T/o1" comment=created
has "$T/o1" top-function=parse_record
has "$T/o1" top-module=workload
has "$T/o1" top-metric=self
has "$T/o1" report-dir=perfdiff-report
has "$T/o1" "perfdiff=$PERFDIFF"
expect_grep '^::error::performance regressed: parse_record' "$T/out"
# the top regression's change is perf.json's, and near the planted 40 %
if python3 - "$R/perf.json" "$T/o1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = [f for f in d["functions"] if f["function"] == "parse_record"][0]
out = dict(l.rstrip("\n").split("=", 1) for l in open(sys.argv[2]))
assert out["top-change"] == "%+.1f" % f["self"]["delta_pct"], out
assert 30 < float(out["top-change"]) < 50, out
assert out["total-change"] == "%+.1f" % d["total"]["delta_pct"], out
PY
then ok; else not_ok "top-change and total-change from perf.json"; fi
for f in perf.md perf.json perf.html meta.json; do
	[ -s "$R/$f" ] && ok || not_ok "no $f in the report folder"
done
expect_grep '<svg' "$R/perf.html"
has "$R/meta.json" "{\"pr\": 12, \"head_sha\": \"$HEAD\", \"run_url\": \"https://github.example/acme/app/actions/runs/77\", \"status\": 1}"
# the summary is the report's Markdown
head -1 "$R/perf.md" >"$T/headline"
expect_grep '^\*\*perfdiff: regressed\*\*' "$T/headline"
grep -qxF -f "$T/headline" "$T/summary.md" && ok || not_ok "summary lacks the headline"
cp "$R/perf.md" "$T/run1.md"
forge_check gh "first run: listed page by page, then one POST" <<'PY'
assert [r["method"] for r in R] == ["GET", "GET", "POST"], [(r["method"], r["query"]) for r in R]
assert all(r["token"] == "t0ken" for r in R)
assert R[0]["path"] == R[2]["path"] == "/repos/acme/app/issues/12/comments", R
assert "page=2" in R[1]["query"], R[1]
body = R[2]["body"]["body"]
assert body.startswith("<!-- perfdiff-comment: perfdiff -->\n"), body[:80]
md = open(E["T"] + "/run1.md").read().rstrip("\n")
assert md in body, "the report's Markdown is not in the comment"
assert "[the CI run](https://github.example/acme/app/actions/runs/77)" in body, body[-300:]
assert "<code>0123456789</code>" in body, body[-300:]
PY

# --- second run: the same comment is updated; no failure when told
: >"$T/summary.md"
expect_exit 0 action "$T/o2" baseline="$D/base.perf.txt.gz" candidate="$D/cand.perf.txt.gz" \
	perfdiff="$PERFDIFF" fail-on-regression=false report-url=https://reports.example/12/perf.html
has "$T/o2" verdict=regressed
has "$T/o2" status=1
has "$T/o2" comment=updated
expect_grep '^\*\*perfdiff: regressed\*\*' "$T/summary.md"
forge_check gh "second run: one PATCH of the comment the POST made" <<'PY'
posts = [r for r in R if r["method"] == "POST"]
patches = [r for r in R if r["method"] == "PATCH"]
assert len(posts) == 1 and len(patches) == 1, [(r["method"], r["path"]) for r in R]
assert patches[0]["path"] == "/repos/acme/app/issues/comments/%d" % posts[0]["id"], patches[0]["path"]
assert patches[0]["status"] == 200
body = patches[0]["body"]["body"]
assert body.startswith("<!-- perfdiff-comment: perfdiff -->\n")
assert "[HTML report (flame graph) and JSON](https://reports.example/12/perf.html)" in body
PY

# --- a token the API does not take (401) is an error, not a refusal
expect_exit 2 action "$T/o2b" baseline="$D/base.perf.txt.gz" candidate="$D/cand.perf.txt.gz" \
	perfdiff="$PERFDIFF" fail-on-regression=false token=expired
expect_grep '^::error::listing the comments of pull request 12: HTTP 401' "$T/out"
has "$T/o2b" verdict=regressed
forge_check gh "a refused token wrote nothing" <<'PY'
assert [r["method"] for r in R].count("POST") == 1 and [r["method"] for r in R].count("PATCH") == 1
PY

# --- a comparison that fails: exit 2, said in the same comment
expect_exit 2 action "$T/o3" baseline="$D/base.perf.txt.gz" candidate="$T/missing.perf.txt" perfdiff="$PERFDIFF"
has "$T/o3" verdict=error
has "$T/o3" status=2
has "$T/o3" comment=updated
forge_check gh "a failed comparison updates the comment with the error" <<'PY'
assert [r["method"] for r in R].count("POST") == 1
last = [r for r in R if r["method"] == "PATCH"][-1]
body = last["body"]["body"]
assert "**perfdiff: error**" in body and "missing.perf.txt" in body, body
assert "HTML report" not in body, "a failed run links to no report"
PY

# --- a fork's pull request: the token may not comment
GH_API=$GITHUB_API_URL
forge_start fork --deny --head "$HEAD"
GITHUB_API_URL=http://127.0.0.1:$FORGE_PORT GITHUB_RUN_ID=78
: >"$T/summary.md"
expect_exit 0 action "$T/o4" baseline="$D/base.perf.txt.gz" candidate="$D/cand.perf.txt.gz" \
	perfdiff="$PERFDIFF" fail-on-regression=false
has "$T/o4" comment=forbidden
has "$T/o4" verdict=regressed
expect_grep '^::warning::the token may not comment on pull request 12 (HTTP 403 on POST' "$T/out"
expect_grep '^\*\*perfdiff: regressed\*\*' "$T/summary.md"
expect_grep 'may not comment' "$T/summary.md"
for f in perf.md perf.json perf.html meta.json; do
	[ -s "$R/$f" ] && ok || not_ok "fork: no $f in the report folder"
done
forge_check fork "a fork's run created nothing" <<'PY'
assert all(r["status"] in (200, 403) for r in R), R
assert [r["method"] for r in R if r["status"] == 403] == ["POST"], R
PY
# and the regression alone still fails a fork's job
expect_exit 1 action "$T/o4b" baseline="$D/base.perf.txt.gz" candidate="$D/cand.perf.txt.gz" perfdiff="$PERFDIFF"
has "$T/o4b" comment=forbidden
GITHUB_API_URL=$GH_API

# --- the workflow_run job: the fork's folder, as its artifact, is posted
# (the number from meta.json) through the same comment; no build.
mv "$R" "$T/artifact"
rm -f "$T/event.json"
GITHUB_RUN_ID=79
expect_exit 0 action "$T/o5" mode=comment report-dir="$T/artifact" expect-head-sha="$HEAD"
has "$T/o5" comment=updated
has "$T/o5" verdict=regressed
has "$T/o5" status=1
has "$T/o5" perfdiff=
forge_check gh "the workflow_run job updates the one comment" <<'PY'
assert [r["method"] for r in R].count("POST") == 1
last = [r for r in R if r["method"] == "PATCH"][-1]
assert last["status"] == 200
body = last["body"]["body"]
assert body.startswith("<!-- perfdiff-comment: perfdiff -->\n") and "**perfdiff: regressed**" in body
assert "[the CI run](https://github.example/acme/app/actions/runs/78)" in body, body[-300:]
assert any(r["path"] == "/repos/acme/app/pulls/12" for r in R)
PY
# a newer push since: the report is not posted
n=$(wc -l <"$T/gh/requests")
expect_exit 0 action "$T/o6" mode=comment report-dir="$T/artifact" expect-head-sha=ffffffffffffffffffffffffffffffffffffffff
has "$T/o6" comment=skipped
expect_grep '^::warning::no comment: the report is for ffffffffff' "$T/out"
[ "$(sed -n "$((n + 1)),\$p" "$T/gh/requests" | grep -c '"method": "\(POST\|PATCH\)"')" -eq 0 ] && ok ||
	not_ok "a report for another head was posted"
# a forged number in the artifact is refused
printf '{"pr": "12; rm -rf /", "status": 1}\n' >"$T/artifact/meta.json"
expect_exit 2 action "$T/o7" mode=comment report-dir="$T/artifact"
expect_grep 'is no pull request number' "$T/out"
# an artifact's report longer than a comment holds (perfdiff's own stays
# under 60 000 characters) is cut before the last section that fits: the
# first sections whole, a line saying so, the footer's link kept
mkdir -p "$T/long"
printf '{"pr": 12, "head_sha": "%s", "status": 1}\n' "$HEAD" >"$T/long/meta.json"
python3 - "$T/long/perf.md" <<'PY'
import sys
with open(sys.argv[1], "w", encoding="utf-8") as f:
    f.write("**perfdiff: regressed** — three series\n")
    for s in ("one", "two", "three"):
        f.write("\n### %s\n\n| Function | Verdict |\n|---|---|\n" % s)
        for i in range(600):
            f.write("| <code>f&#95;%s&#95;%d</code> | regressed self |\n" % (s, i))
PY
expect_exit 0 action "$T/o7b" mode=comment report-dir="$T/long"
has "$T/o7b" comment=updated
forge_check gh "a report too long for a comment is cut at a section" <<'PY'
body = [r for r in R if r["method"] == "PATCH"][-1]["body"]["body"]
assert len(body) <= 65000, len(body)
assert "| <code>f&#95;two&#95;599</code> | regressed self |\n" in body, "section two not whole"
assert "### three" not in body and "f&#95;three" not in body, "cut inside section three"
assert "*(the rest is left out: the report is longer than a comment holds;" in body, body[-400:]
assert body.rstrip().endswith("<code>0123456789</code></sub>"), body[-300:]
PY

# --- two stored commits: perfdiff compare
export PERFDIFF_DB="$T/h.db"
for s in base cand; do
	c=1
	[ $s = cand ] && c=2
	mkdir -p "$T/b$s/profiles"
	printf '{"git_sha": "%02daaaaaaaaaa", "scenario": "demo", "cache": "warm", "commit_date": "2026-04-%02dT00:00:00Z"}\n' \
		$c $c >"$T/b$s/build_meta.json"
	cp "$D/$s.perf.txt.gz" "$T/b$s/profiles/run.1.perf.txt.gz"
done
pd ingest "$T/bbase" "$T/bcand" >/dev/null 2>&1 || not_ok "ingest"
unset PERFDIFF_DB
expect_exit 1 action "$T/o8" scenario=demo baseline=01aaaa candidate=02aaaa db="$T/h.db" \
	cache=warm perfdiff="$PERFDIFF" comment=false args="--threshold 10"
has "$T/o8" verdict=regressed
has "$T/o8" top-function=parse_record
has "$T/o8" comment=skipped
expect_grep '^perfdiff compare 01aaaa 02aaaa --scenario demo --cache warm --threshold 10$' "$T/out"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["settings"]["threshold_pct"] == 10' \
	"$R/perf.json" && ok || not_ok "args did not reach perfdiff compare"

# a stored commit against a bundle of fresh runs: perfdiff check, whose
# 125 (cannot tell) and 128 (error) are the action's 0 and 2
expect_exit 1 action "$T/o8b" baseline=db:01aaaa:demo:warm candidate="$T/bcand" db="$T/h.db" \
	perfdiff="$PERFDIFF" comment=false
has "$T/o8b" verdict=regressed
has "$T/o8b" status=1
expect_exit 2 action "$T/o8c" baseline=db:01aaaa:demo:warm candidate="$T/none" db="$T/h.db" \
	perfdiff="$PERFDIFF" comment=false
has "$T/o8c" status=2
has "$T/o8c" verdict=error
# (at a 30 % threshold the one run a side cannot tell: 125)
expect_exit 0 action "$T/o8d" baseline=db:01aaaa:demo:warm candidate="$T/bcand" db="$T/h.db" \
	perfdiff="$PERFDIFF" comment=false args="--threshold 30"
has "$T/o8d" status=0
has "$T/o8d" verdict=inconclusive
[ -s "$R/perf.html" ] && ok || not_ok "check 125: no perf.html"

# --- no binary given: built from the source by cmake (a stand-in that
# records its arguments and "builds" a wrapper of $PERFDIFF)
mkdir -p "$T/bin"
cat >"$T/bin/cmake" <<EOF
#!/bin/sh
echo "\$*" >>"$T/cmake.log"
if [ "\$1" = --build ]; then
	printf '#!/bin/sh\nexec "%s" "\$@"\n' "$PERFDIFF" >"\$2/perfdiff"
	chmod +x "\$2/perfdiff"
else
	mkdir -p "\$4"
fi
EOF
chmod +x "$T/bin/cmake"
saved_path=$PATH
PATH=$T/bin:$PATH
expect_exit 0 action "$T/o9" baseline="$D/base.perf.txt.gz" candidate="$D/cand.perf.txt.gz" \
	source="$PD_ROOT" install-dependencies=false comment=false fail-on-regression=false
PATH=$saved_path
has "$T/o9" "perfdiff=$T/tmp/perfdiff-build/perfdiff"
has "$T/o9" verdict=regressed
has "$T/cmake.log" "-S $PD_ROOT -B $T/tmp/perfdiff-build -DPD_TESTS=OFF"
expect_grep "^--build $T/tmp/perfdiff-build -j" "$T/cmake.log"

# --- the example workflows use the action's inputs, and the fork pattern's
# halves agree on the artifact
if python3 - "$ACTION" <<'PY'
import glob, os, sys, yaml
action = yaml.safe_load(open(os.path.join(sys.argv[1], "action.yml")))
names = {}
for path in sorted(glob.glob(os.path.join(sys.argv[1], "examples", "*.yml"))):
    doc = yaml.safe_load(open(path))
    for job in doc["jobs"].values():
        for step in job["steps"]:
            uses = step.get("uses", "")
            if "/scripts/github-action@" in uses:
                extra = set(step.get("with") or {}) - set(action["inputs"])
                assert not extra, (path, extra)
            if uses.startswith("actions/upload-artifact") or uses.startswith("actions/download-artifact"):
                names.setdefault(uses.split("@")[0], set()).add(step["with"]["name"])
    doc_on = doc.get("on", doc.get(True))
    if isinstance(doc_on, dict) and "workflow_run" in doc_on:
        assert doc_on["workflow_run"]["workflows"] == ["perf-pr"], path
        assert doc["permissions"]["pull-requests"] == "write", path
assert names["actions/download-artifact"] <= names["actions/upload-artifact"], names
PY
then ok; else not_ok "the example workflows"; fi

# --- inputs the action does not have are refused by the runner, not
# silently dropped (the stand-in checks the action's own names)
expect_exit 3 action "$T/o10" baseline=a candidate=b fail_on_regression=false
finish
