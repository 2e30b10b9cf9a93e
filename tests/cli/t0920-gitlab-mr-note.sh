#!/bin/sh
# The GitLab CI template (scripts/gitlab/perfdiff.gitlab-ci.yml, its
# .perfdiff job's script run by tests/tools/ci_job.py as a shell executor
# runs it) against a fake GitLab API on loopback
# (tests/tools/fake_forge.py), on the demo pair, whose parse_record does
# 40 % more work in the candidate (README):
# - two pipelines of one merge request make one note, created by the first
#   (one POST) and updated by the second (one PUT of that note, found on
#   the listing's second page, past another person's note that quotes the
#   marker and a system note that starts with it), sent with the token as
#   PRIVATE-TOKEN to a project named by its path; the note carries the
#   marker, the report's Markdown and a link to the job's artifacts;
#   the dotenv report (verdict, perfdiff's exit status, the top
#   regression) and the HTML and JSON are in the folder the template's
#   artifacts keep; the job fails on the regression unless told not to;
# - a merge request whose token may not write notes (403), or a pipeline
#   without the token (a fork's, which has no CI/CD variables of the
#   parent), creates nothing and does not fail for it.
# What GitLab sends and takes (paths, PUT, Link pagination, CI_*
# variables, dotenv reports) is from GitLab's REST API and CI docs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/forge.sh"
D=$PD_ROOT/fixtures/demo
TEMPLATE=$PD_ROOT/scripts/gitlab/perfdiff.gitlab-ci.yml
SHA=89abcdef0123456789abcdef0123456789abcdef
forge_start gl

mkdir -p "$T/ws"
export GITLAB_CI=true CI_API_V4_URL=http://127.0.0.1:$FORGE_PORT/api/v4 CI_PROJECT_ID=acme/app \
	CI_MERGE_REQUEST_IID=7 CI_PROJECT_DIR=$T/ws CI_PROJECT_URL=https://gitlab.example/acme/app \
	CI_JOB_URL=https://gitlab.example/acme/app/-/jobs/99 CI_COMMIT_SHA=$SHA \
	PERFDIFF_TOKEN=t0ken PERFDIFF_SRC=$PD_ROOT PERFDIFF_BIN=$PERFDIFF \
	PERFDIFF_BASELINE=$D/base.perf.txt.gz PERFDIFF_CANDIDATE=$D/cand.perf.txt.gz

job() {
	(cd "$T/ws" && python3 "$TOOLS/ci_job.py" gitlab-job "$TEMPLATE" .perfdiff)
}
has() {
	if grep -qxF -e "$2" "$1"; then ok; else not_ok "no line '$2' in $1: $(head -c 600 "$1")"; fi
}
R=$T/ws/perfdiff-report

# the template keeps the folder the script writes, and its dotenv file
if python3 - "$TEMPLATE" <<'PY'
import sys, yaml
job = yaml.safe_load(open(sys.argv[1]))[".perfdiff"]
a = job["artifacts"]
assert job["variables"]["PERFDIFF_REPORT_DIR"] == "perfdiff-report"
assert a["paths"] == ["perfdiff-report/"] and a["when"] == "always", a
assert a["reports"]["dotenv"] == "perfdiff-report/perfdiff.env", a
assert job["rules"][0]["if"] == '$CI_PIPELINE_SOURCE == "merge_request_event"'
PY
then ok; else not_ok "the template's artifacts"; fi

# --- first pipeline: a note is created; the job fails on the regression
expect_exit 1 job
expect_grep '^error: performance regressed: parse_record' "$T/out"
has "$R/perfdiff.env" PERFDIFF_VERDICT=regressed
has "$R/perfdiff.env" PERFDIFF_STATUS=1
has "$R/perfdiff.env" PERFDIFF_TOP_FUNCTION=parse_record
has "$R/perfdiff.env" PERFDIFF_TOP_METRIC=self
has "$R/perfdiff.env" PERFDIFF_COMMENT=created
if python3 - "$R/perf.json" "$R/perfdiff.env" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = [f for f in d["functions"] if f["function"] == "parse_record"][0]
env = dict(l.rstrip("\n").split("=", 1) for l in open(sys.argv[2]))
assert env["PERFDIFF_TOP_CHANGE"] == "%+.1f" % f["self"]["delta_pct"], env
assert env["PERFDIFF_COMMENT_URL"].startswith("https://gitlab.example/acme/app/-/merge_requests/7#note_"), env
PY
then ok; else not_ok "dotenv values"; fi
for f in perf.md perf.json perf.html meta.json; do
	[ -s "$R/$f" ] && ok || not_ok "no $f in the report folder"
done
cp "$R/perf.md" "$T/run1.md"
forge_check gl "first pipeline: listed page by page, then one POST" <<'PY'
assert [r["method"] for r in R] == ["GET", "GET", "POST"], [(r["method"], r["query"]) for r in R]
assert all(r["token"] == "t0ken" for r in R)
notes = "/api/v4/projects/acme%2Fapp/merge_requests/7/notes"
assert R[0]["path"] == R[2]["path"] == notes, R[0]["path"]
assert "page=2" in R[1]["query"] and "sort=asc" in R[0]["query"], R[:2]
body = R[2]["body"]["body"]
assert body.startswith("<!-- perfdiff-comment: perfdiff -->\n"), body[:80]
assert open(E["T"] + "/run1.md").read().rstrip("\n") in body
assert "[the CI run](https://gitlab.example/acme/app/-/jobs/99/artifacts/browse/perfdiff-report)" in body, body[-300:]
assert "<code>89abcdef01</code>" in body
PY

# --- second pipeline: the same note is updated
PERFDIFF_FAIL_ON_REGRESSION=false
export PERFDIFF_FAIL_ON_REGRESSION
expect_exit 0 job
has "$R/perfdiff.env" PERFDIFF_COMMENT=updated
has "$R/perfdiff.env" PERFDIFF_STATUS=1
forge_check gl "second pipeline: one PUT of the note the POST made" <<'PY'
posts = [r for r in R if r["method"] == "POST"]
puts = [r for r in R if r["method"] == "PUT"]
assert len(posts) == 1 and len(puts) == 1, [(r["method"], r["path"]) for r in R]
assert puts[0]["path"] == "/api/v4/projects/acme%%2Fapp/merge_requests/7/notes/%d" % posts[0]["id"], puts[0]["path"]
assert puts[0]["status"] == 200
assert puts[0]["body"]["body"].startswith("<!-- perfdiff-comment: perfdiff -->\n")
PY

# --- a token that may not write notes: nothing created, no failure for it
forge_start deny --deny
CI_API_V4_URL=http://127.0.0.1:$FORGE_PORT/api/v4
expect_exit 0 job
has "$R/perfdiff.env" PERFDIFF_COMMENT=forbidden
has "$R/perfdiff.env" PERFDIFF_VERDICT=regressed
expect_grep '^warning: the token may not comment on merge request 7 (HTTP 403 on POST' "$T/out"
for f in perf.md perf.json perf.html; do
	[ -s "$R/$f" ] && ok || not_ok "403: no $f in the report folder"
done
forge_check deny "a denied token created nothing" <<'PY'
assert [r["method"] for r in R if r["status"] != 200] == ["POST"], R
assert [r["status"] for r in R if r["method"] == "POST"] == [403]
PY

# --- a fork's pipeline: no token at all
n=$(wc -l <"$T/deny/requests")
unset PERFDIFF_TOKEN
expect_exit 0 job
has "$R/perfdiff.env" PERFDIFF_COMMENT=skipped
expect_grep '^warning: no comment on merge request 7: no token' "$T/out"
[ "$(wc -l <"$T/deny/requests")" -eq "$n" ] && ok || not_ok "a pipeline without a token asked the API"
finish
