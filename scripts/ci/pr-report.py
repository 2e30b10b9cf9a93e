#!/usr/bin/env python3
"""pr-report.py run|comment: perfdiff's report on a pull request (GitHub)
or a merge request (GitLab), as docs/ci.md, "Pull-request comments" says.

run      compares PERFDIFF_BASELINE with PERFDIFF_CANDIDATE (two profiles or
         two bundle folders; two stored commits with PERFDIFF_SCENARIO set;
         a stored commit `db:REV[:SCENARIO[:CACHE]]` against a bundle),
         writes perf.md, perf.json, perf.html and meta.json to
         PERFDIFF_REPORT_DIR, then reports as `comment` does. Exit status:
         0, 1 for a regression when PERFDIFF_FAIL_ON_REGRESSION is true
         (the default), 2 when perfdiff or the forge's API failed.
comment  posts the report a `run` left in PERFDIFF_REPORT_DIR (a
         workflow_run job after a fork's pull_request job): the one comment
         marked with PERFDIFF_COMMENT_TAG is created the first time and
         updated every later time. Exit status 0, or 2.

Both write the Markdown to the job summary ($GITHUB_STEP_SUMMARY) and the
verdict, perfdiff's exit status and the top regression to the step's
outputs ($GITHUB_OUTPUT; on GitLab the dotenv file perfdiff.env in the
report folder). A token that may not comment (HTTP 403 or 404, as a fork's
pull request has) is a warning, not a failure. Settings come from the
environment, so that the Action's inputs and GitLab's variables are the
same thing: see docs/ci.md for the list. Python 3.8 or later, no modules
beyond the standard library (GitHub's runners have it as they are).
"""

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

# GitHub holds 65 536 characters a comment (perfdiff's Markdown stays under
# 60 000, several series too: docs/reports.md, "Markdown"); a report read
# back from another job's artifact is cut to this, whoever wrote it.
MAX_BODY = 65000
PAGE_LIMIT = 200
# Where a report may be cut: before a series' heading, a table's heading or
# a collapsed section, all at the top level of perfdiff's Markdown; never
# inside a table or a <details>.
SECTION = re.compile(r"^(?:### |#### |<details)", re.M)


class Failure(Exception):
    """An error that ends the job with exit status 2."""


def setting(name, default=""):
    value = os.environ.get(name, "")
    return value if value.strip() else default


def boolean(name, default):
    value = setting(name).strip().lower()
    if not value:
        return default
    if value in ("true", "yes", "1", "on"):
        return True
    if value in ("false", "no", "0", "off"):
        return False
    raise Failure(f"{name}: '{value}' is neither true nor false")


def one_line(text, limit=1000):
    """A value for an output or a log line: no control characters."""
    text = re.sub(r"[\x00-\x1f\x7f\u2028\u2029]", " ", str(text))
    return text[:limit]


class Log:
    def __init__(self, forge):
        self.github = forge == "github"

    def _annotate(self, kind, msg):
        if self.github:
            # workflow commands: %, CR and LF are escaped in the message
            msg = msg.replace("%", "%25").replace("\r", "%0D")
            print(f"::{kind}::" + msg.replace("\n", "%0A"), flush=True)
        else:
            print(f"{kind}: {msg}", flush=True)

    def warning(self, msg):
        self._annotate("warning", msg)

    def error(self, msg):
        self._annotate("error", msg)

    def note(self, msg):
        print(msg, flush=True)


# --- the forges -------------------------------------------------------------


class Forge:
    """The comment API of one forge; kind is github or gitlab."""

    def __init__(self, kind, log):
        self.kind, self.log = kind, log
        self.token = setting("PERFDIFF_TOKEN")
        if kind == "github":
            self.token = self.token or setting("GITHUB_TOKEN")
            self.api = setting("GITHUB_API_URL", "https://api.github.com")
            self.repo = setting("GITHUB_REPOSITORY")
            self.noun = "pull request"
        else:
            self.api = setting("CI_API_V4_URL")
            self.repo = setting("CI_PROJECT_ID")
            self.noun = "merge request"
        self.api = self.api.rstrip("/")
        base = urllib.parse.urlsplit(self.api)
        self.origin = (base.scheme, base.netloc)

    def missing(self):
        """What keeps this forge from being asked, or None."""
        if not self.token:
            return "no token (PERFDIFF_TOKEN)"
        if not self.api:
            return "no API address (CI_API_V4_URL)"
        if not self.repo:
            return "no repository (GITHUB_REPOSITORY / CI_PROJECT_ID)"
        return None

    def _headers(self):
        h = {"User-Agent": "perfdiff-pr-report", "Content-Type": "application/json"}
        if self.kind == "github":
            h["Authorization"] = "Bearer " + self.token
            h["Accept"] = "application/vnd.github+json"
            h["X-GitHub-Api-Version"] = "2022-11-28"
        else:
            h["PRIVATE-TOKEN"] = self.token
        return h

    def call(self, method, url, body=None):
        """(status, headers, decoded JSON or None). A failed GET, PATCH or
        PUT is tried again on a server error; a POST is not, as it may
        have been carried out."""
        data = None if body is None else json.dumps(body).encode()
        tries = 3 if method != "POST" else 1
        for attempt in range(tries):
            req = urllib.request.Request(url, data=data, method=method,
                                         headers=self._headers())
            try:
                with urllib.request.urlopen(req, timeout=30) as r:
                    raw = r.read()
                    return r.status, r.headers, json.loads(raw) if raw else None
            except urllib.error.HTTPError as e:
                if e.code >= 500 and attempt + 1 < tries:
                    time.sleep(2 * (attempt + 1))
                    continue
                return e.code, e.headers, None
            except (urllib.error.URLError, OSError, ValueError) as e:
                if attempt + 1 < tries:
                    time.sleep(2 * (attempt + 1))
                    continue
                raise Failure(f"{method} {self._shown(url)}: {e}")
        raise AssertionError("unreachable")

    def _shown(self, url):
        return url.split("?")[0]

    def _project(self):
        return urllib.parse.quote(self.repo, safe="")

    def comments_url(self, number):
        if self.kind == "github":
            return f"{self.api}/repos/{self.repo}/issues/{number}/comments"
        return f"{self.api}/projects/{self._project()}/merge_requests/{number}/notes"

    def first_page(self, number):
        q = "per_page=100"
        if self.kind == "gitlab":
            q += "&sort=asc&order_by=created_at"
        return self.comments_url(number) + "?" + q

    def comment_url(self, number, cid):
        if self.kind == "github":
            return f"{self.api}/repos/{self.repo}/issues/comments/{cid}"
        return f"{self.comments_url(number)}/{cid}"

    def update_method(self):
        return "PATCH" if self.kind == "github" else "PUT"

    def web_url(self, number, comment):
        if self.kind == "github":
            return comment.get("html_url") or ""
        project = setting("CI_PROJECT_URL")
        if not project:
            return ""
        return f"{project}/-/merge_requests/{number}#note_{comment.get('id')}"

    def head_sha(self, number):
        """The pull request's head commit, or None when it cannot be read."""
        if self.kind == "github":
            url = f"{self.api}/repos/{self.repo}/pulls/{number}"
        else:
            url = f"{self.api}/projects/{self._project()}/merge_requests/{number}"
        status, _, doc = self.call("GET", url)
        if status != 200 or not isinstance(doc, dict):
            return None
        if self.kind == "github":
            return (doc.get("head") or {}).get("sha")
        return doc.get("sha")

    def next_page(self, headers):
        """The Link header's rel="next" address, when it is on the API's
        own host (the token goes nowhere else)."""
        for part in (headers.get("Link") or "").split(","):
            m = re.match(r'\s*<([^>]*)>\s*;(.*)', part)
            if not m or not re.search(r'rel="?next"?', m.group(2)):
                continue
            nxt = urllib.parse.urlsplit(m.group(1))
            if (nxt.scheme, nxt.netloc) == self.origin:
                return m.group(1)
            self.log.warning(f"next page on another host ignored: {nxt.netloc}")
        return None


def find_marked(forge, number, marker):
    """The oldest comment whose body starts with marker: (status, comment)."""
    url, pages = forge.first_page(number), 0
    while url and pages < PAGE_LIMIT:
        status, headers, doc = forge.call("GET", url)
        if status != 200:
            return status, None
        for c in doc if isinstance(doc, list) else []:
            if c.get("system"):  # GitLab's notes of events
                continue
            if str(c.get("body") or "").startswith(marker):
                return status, c
        url, pages = forge.next_page(headers), pages + 1
    return 200, None


def upsert(forge, number, marker, body):
    """Creates or updates the marked comment. Returns (what, url): what is
    created, updated, or forbidden (the token may not comment)."""
    status, found = find_marked(forge, number, marker)
    if status in (403, 404):
        return "forbidden", f"HTTP {status} listing the comments"
    if status != 200:
        raise Failure(f"listing the comments of {forge.noun} {number}: HTTP {status}")
    if found:
        method, url, what = forge.update_method(), forge.comment_url(number, found["id"]), "updated"
    else:
        method, url, what = "POST", forge.comments_url(number), "created"
    status, _, doc = forge.call(method, url, {"body": body})
    if status in (403, 404):
        return "forbidden", f"HTTP {status} on {method}"
    if status not in (200, 201):
        raise Failure(f"{method} {forge._shown(url)}: HTTP {status}")
    return what, forge.web_url(number, doc if isinstance(doc, dict) else {})


# --- the event: which pull request, which commit ----------------------------


def event():
    path = setting("GITHUB_EVENT_PATH")
    if not path:
        return {}
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        return doc if isinstance(doc, dict) else {}
    except (OSError, ValueError):
        return {}


def number_from(value, what):
    value = str(value).strip()
    if not value:
        return None
    if not re.fullmatch(r"[1-9][0-9]{0,9}", value):
        raise Failure(f"{what}: '{one_line(value, 40)}' is no pull request number")
    return int(value)


def request_number(forge):
    given = number_from(setting("PERFDIFF_PR"), "PERFDIFF_PR")
    if given or forge == "gitlab":
        return given or number_from(setting("CI_MERGE_REQUEST_IID"), "CI_MERGE_REQUEST_IID")
    ev = event()
    pr = ev.get("pull_request") or {}
    issue = ev.get("issue") or {}
    if pr.get("number"):
        return number_from(pr["number"], "the event's pull_request.number")
    if issue.get("pull_request") and issue.get("number"):
        return number_from(issue["number"], "the event's issue.number")
    return None


def head_commit(forge):
    if forge == "gitlab":
        sha = setting("CI_COMMIT_SHA")
    else:
        sha = ((event().get("pull_request") or {}).get("head") or {}).get("sha") or setting("GITHUB_SHA")
    return sha if re.fullmatch(r"[0-9a-f]{7,64}", sha or "") else ""


def run_url(forge, outdir):
    """Where the job's artifacts are listed, when the CI says."""
    if forge == "github":
        server, repo, run = (setting(n) for n in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID"))
        return f"{server}/{repo}/actions/runs/{run}" if server and repo and run else ""
    job = setting("CI_JOB_URL")
    if not job:
        return ""
    rel = os.path.relpath(os.path.abspath(outdir), setting("CI_PROJECT_DIR", os.getcwd()))
    rel = "" if rel.startswith("..") else urllib.parse.quote(rel.replace(os.sep, "/"))
    return f"{job}/artifacts/browse/{rel}"


# --- perfdiff and its report ------------------------------------------------


def perfdiff_command():
    base, cand = setting("PERFDIFF_BASELINE"), setting("PERFDIFF_CANDIDATE")
    if not base or not cand:
        raise Failure("PERFDIFF_BASELINE and PERFDIFF_CANDIDATE name what to compare")
    scenario = setting("PERFDIFF_SCENARIO")
    if base.startswith("db:") or cand.startswith("db:"):
        # a stored commit against fresh runs: check, with its own statuses
        args = ["check", base, cand] + (["--scenario", scenario] if scenario else [])
    elif scenario:
        args = ["compare", base, cand, "--scenario", scenario]
    else:
        args = ["diff", base, cand]
    for name, opt in (("PERFDIFF_CACHE", "--cache"), ("PERFDIFF_TOOL", "--tool")):
        if setting(name):
            args += [opt, setting(name)]
    try:
        args += shlex.split(setting("PERFDIFF_ARGS"))
    except ValueError as e:
        raise Failure(f"PERFDIFF_ARGS: {e}")
    return args


def perfdiff_binary():
    given = setting("PERFDIFF_BIN", "perfdiff")
    found = shutil.which(given)
    if not found:
        raise Failure(f"{given}: no such program (PERFDIFF_BIN)")
    return found


def run_perfdiff(outdir, log):
    """perf.md, perf.json and perf.html in outdir; returns (status, stderr
    of the Markdown run). HTML is a bonus: one that perfdiff refuses (a
    bundle diff of several series) is a warning."""
    binary, args = perfdiff_binary(), perfdiff_command()
    log.note("perfdiff " + " ".join(shlex.quote(a) for a in args))
    results = {}
    for fmt, name in (("md", "perf.md"), ("json", "perf.json"), ("html", "perf.html")):
        path = os.path.join(outdir, name)
        p = subprocess.run([binary] + args + ["-f", fmt, "-o", path],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL)
        code = p.returncode
        if args[0] == "check":  # for git bisect run: 125 cannot tell, 128 error
            code = {125: 0, 128: 2}.get(code, code)
        results[fmt] = (code, p.stderr.decode("utf-8", "replace"))
        if fmt == "md" and code not in (0, 1):
            break
    status, err = results["md"]
    sys.stderr.write(err)
    if status in (0, 1):
        for fmt in ("json", "html"):
            code, ferr = results[fmt]
            if code not in (0, 1):
                log.warning(f"no perf.{fmt}: {one_line(ferr.strip(), 500)}")
    return status, err


def read_text(path, limit=None):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read(limit) if limit else f.read()
    except OSError:
        return None


def load_json(path):
    text = read_text(path)
    if text is None:
        return None
    try:
        doc = json.loads(text)
    except ValueError:
        return None
    return doc if isinstance(doc, dict) else None


def signed(x):
    return "" if x is None else f"{float(x):+.1f}"


def summarise(doc):
    """verdict, top regression (self before total, then by impact, over
    every series of a bundle diff) and the total's change, from perf.json.
    A document of another shape (another job's artifact) gives blanks."""
    out = {"verdict": "", "top-function": "", "top-module": "", "top-metric": "",
           "top-change": "", "total-change": ""}
    try:
        top(doc, out)
    except (AttributeError, TypeError, ValueError):
        pass
    return out


def top(doc, out):
    if not doc:
        return
    out["verdict"] = one_line(doc.get("verdict") or "", 40)
    reports = [s.get("report") or {} for s in doc["series"]] if isinstance(doc.get("series"), list) else [doc]
    best = None
    for rep in reports:
        for f in rep.get("functions") or []:
            for metric in ("self", "total"):
                m = f.get(metric) or {}
                if m.get("status") != "regressed":
                    continue
                key = (metric == "self", float(m.get("impact_pct") or 0))
                if best is None or key > best[0]:
                    best = (key, f, metric, m)
    if best:
        _, f, metric, m = best
        out.update({"top-function": one_line(f.get("function") or ""),
                    "top-module": one_line(f.get("module") or ""),
                    "top-metric": metric, "top-change": signed(m.get("delta_pct"))})
    if len(reports) == 1:
        out["total-change"] = signed((reports[0].get("total") or {}).get("delta_pct"))


def fence(text):
    """text as a fenced code block that nothing in it can close."""
    longest = max((len(r) for r in re.findall(r"`+", text)), default=0)
    mark = "`" * max(3, longest + 1)
    return f"{mark}\n{text}\n{mark}"


def report_markdown(outdir, meta):
    """The report's Markdown: perf.md, or for a failed run perfdiff's error."""
    if meta.get("status") in (0, 1):
        md = read_text(os.path.join(outdir, "perf.md"), MAX_BODY)
        if md is None:
            raise Failure(f"{outdir}/perf.md: not there")
        return md.rstrip("\n")
    err = read_text(os.path.join(outdir, "error.txt"), 4000) or "(no message)"
    err = re.sub(r"[\x00-\x08\x0b-\x1f\x7f]", "?", err.strip())
    return (f"**perfdiff: error** — the comparison did not run (exit status "
            f"{meta.get('status')}):\n\n" + fence(err))


def safe_url(url):
    if not re.match(r"https?://", url or ""):
        return ""
    return urllib.parse.quote(url, safe=":/?#[]@!$&'*+,;=%-._~")


def footer(meta, report_url):
    bits = []
    if meta.get("status") in (0, 1):  # a failed run has no report to link
        url, run = safe_url(report_url), safe_url(meta.get("run_url"))
        if url:
            bits.append(f"📎 [HTML report (flame graph) and JSON]({url})")
        elif run:
            bits.append(f"📎 HTML report (flame graph) and JSON: artifact of [the CI run]({run})")
    if re.fullmatch(r"[0-9a-f]{7,64}", meta.get("head_sha") or ""):
        bits.append(f"for <code>{meta['head_sha'][:10]}</code>")
    return "<sub>" + " · ".join(bits) + "</sub>" if bits else ""


def comment_body(marker, md, foot):
    """The marker, the report and the footer. A report longer than a
    comment holds keeps its first sections whole: it is cut before the
    last section that fits (at a line, when none does), says so, and
    keeps the footer's link to the whole."""
    tail = f"\n{foot}\n" if foot else ""
    if len(marker) + len(md) + 2 + len(tail) <= MAX_BODY:
        return f"{marker}\n{md}\n{tail}"
    cut = ("\n*(the rest is left out: the report is longer than a comment "
           "holds; perf.md in the report folder has all of it)*\n")
    room = MAX_BODY - len(marker) - 2 - len(cut) - len(tail)
    starts = [m.start() for m in SECTION.finditer(md, 0, max(room, 0))]
    at = starts[-1] if starts and starts[-1] > 0 else md.rfind("\n", 0, room)
    if at <= 0:
        at = max(room, 0)
    return f"{marker}\n{md[:at].rstrip()}\n{cut}{tail}"


# --- where the CI shows things ----------------------------------------------


def write_outputs(forge, outdir, values):
    if forge == "github":
        path = setting("GITHUB_OUTPUT")
        if not path:
            return
        # one_line leaves no newline that could start another output
        with open(path, "a", encoding="utf-8") as f:
            for k, v in values.items():
                f.write(f"{k}={one_line(v)}\n")
        return
    # GitLab: a dotenv report (artifacts: reports: dotenv) for later jobs,
    # which GitLab takes up to 5 KB: a long C++ name is cut
    with open(os.path.join(outdir, "perfdiff.env"), "w", encoding="utf-8") as f:
        for k, v in values.items():
            name = "PERFDIFF_" + k.upper().replace("-", "_")
            f.write(f"{name}={one_line(v, 255)}\n")


def write_summary(forge, md, notes):
    path = setting("GITHUB_STEP_SUMMARY") if forge == "github" else ""
    if not path:
        return
    with open(path, "a", encoding="utf-8") as f:
        f.write(md + "\n\n")
        for n in notes:
            f.write(f"> {n}\n\n")


def tag_marker():
    tag = setting("PERFDIFF_COMMENT_TAG", "perfdiff")
    if not re.fullmatch(r"[A-Za-z0-9._:/-]{1,64}", tag) or "--" in tag:
        raise Failure(f"PERFDIFF_COMMENT_TAG: '{one_line(tag, 70)}': letters, digits, . _ : / and single - only")
    return f"<!-- perfdiff-comment: {tag} -->"


def post(forge, log, outdir, meta, md, report_url, number):
    """Comments; returns (what, url, notes for the summary)."""
    notes = []
    api = Forge(forge, log)
    if not boolean("PERFDIFF_POST_COMMENT", True):
        return "skipped", "", notes
    if not number:
        log.note(f"no {api.noun} to comment on (not a {api.noun} event, and PERFDIFF_PR is not set)")
        return "skipped", "", notes
    why = api.missing()
    if why:
        log.warning(f"no comment on {api.noun} {number}: {why}")
        return "skipped", "", notes
    want = setting("PERFDIFF_EXPECT_HEAD_SHA").lower()
    if want:
        have = api.head_sha(number)
        if have != want:
            log.warning(f"no comment: the report is for {want[:10]}, but {api.noun} {number} "
                        f"is at {(have or 'an unknown commit')[:20]} (a newer run will comment)")
            return "skipped", "", notes
    marker = tag_marker()
    what, url = upsert(api, number, marker, comment_body(marker, md, footer(meta, report_url)))
    if what == "forbidden":
        msg = (f"the token may not comment on {api.noun} {number} ({url}; a fork's "
               f"{api.noun} has a read-only token): the report is in {outdir}/ for a "
               f"job that may, such as a workflow_run workflow (docs/ci.md)")
        log.warning(msg)
        notes.append(msg)
        return what, "", notes
    log.note(f"comment {what} on {api.noun} {number}: {url}")
    return what, url, notes


def report(forge, log, outdir, meta, report_url, number):
    """Summary, comment and outputs of a report folder; returns the outputs."""
    md = report_markdown(outdir, meta)
    values = summarise(load_json(os.path.join(outdir, "perf.json")) if meta.get("status") in (0, 1) else None)
    if meta.get("status") not in (0, 1):
        values["verdict"] = "error"
    values.update({"status": str(meta.get("status")), "report-dir": outdir,
                   "comment": "skipped", "comment-url": ""})
    notes = []
    try:
        what, url, notes = post(forge, log, outdir, meta, md, report_url, number)
        values.update({"comment": what, "comment-url": url})
    finally:
        write_summary(forge, md, notes)
        write_outputs(forge, outdir, values)
    return values


def cmd_run(forge, log):
    outdir = setting("PERFDIFF_REPORT_DIR", "perfdiff-report")
    os.makedirs(outdir, exist_ok=True)
    for name in ("perf.md", "perf.json", "perf.html", "error.txt"):
        try:
            os.remove(os.path.join(outdir, name))
        except FileNotFoundError:
            pass
    fail = boolean("PERFDIFF_FAIL_ON_REGRESSION", True)
    number = request_number(forge)
    try:
        status, err = run_perfdiff(outdir, log)
    except Failure as e:
        status, err = 2, f"{e}\n"
    if status not in (0, 1):
        with open(os.path.join(outdir, "error.txt"), "w", encoding="utf-8") as f:
            f.write(err)
    meta = {"pr": number, "head_sha": head_commit(forge), "run_url": run_url(forge, outdir),
            "status": status}
    with open(os.path.join(outdir, "meta.json"), "w", encoding="utf-8") as f:
        json.dump(meta, f)
        f.write("\n")
    values = report(forge, log, outdir, meta, setting("PERFDIFF_REPORT_URL"), number)
    if status not in (0, 1):
        log.error(f"perfdiff failed (exit status {status}): {one_line(err.strip(), 500)}")
        return 2
    top = values["top-function"]
    log.note(f"perfdiff: {values['verdict']}" + (f", top regression {top} {values['top-change']} %" if top else ""))
    if status == 1 and fail:
        log.error(f"performance regressed{': ' + top if top else ''} (PERFDIFF_FAIL_ON_REGRESSION)")
        return 1
    return 0


def cmd_comment(forge, log):
    """The report of an earlier job's run: its folder is another job's
    artifact (a fork's, perhaps), so it is only read: the pull request
    number must be a number, addresses of the run are checked, and
    PERFDIFF_EXPECT_HEAD_SHA ties the report to the pull request's head."""
    outdir = setting("PERFDIFF_REPORT_DIR", "perfdiff-report")
    meta = load_json(os.path.join(outdir, "meta.json"))
    if meta is None:
        raise Failure(f"{outdir}/meta.json: not there or not JSON (is this a report folder of `run`?)")
    status = meta.get("status")
    meta = {"status": status if status in (0, 1, 2) else 2,
            "head_sha": str(meta.get("head_sha") or "").lower(),
            "pr": meta.get("pr"),
            "run_url": str(meta.get("run_url") or "")}
    # a link into this repository's runs, or none
    own = run_url(forge, outdir)
    if not own or forge != "github" or not re.fullmatch(
            re.escape(own.rsplit("/", 1)[0]) + r"/[0-9]+", meta["run_url"]):
        meta["run_url"] = ""
    number = number_from(setting("PERFDIFF_PR"), "PERFDIFF_PR") or \
        number_from(meta["pr"] or "", f"{outdir}/meta.json: pr")
    report(forge, log, outdir, meta, setting("PERFDIFF_REPORT_URL"), number)
    return 0


def main(argv):
    if len(argv) != 2 or argv[1] not in ("run", "comment"):
        sys.stderr.write(__doc__)
        return 2
    forge = setting("PERFDIFF_FORGE") or ("gitlab" if setting("GITLAB_CI") else "github")
    log = Log(forge)
    if forge not in ("github", "gitlab"):
        log.error(f"PERFDIFF_FORGE: '{one_line(forge, 40)}' is neither github nor gitlab")
        return 2
    try:
        tag_marker()  # a bad tag is said before any work
        return cmd_run(forge, log) if argv[1] == "run" else cmd_comment(forge, log)
    except Failure as e:
        log.error(str(e))
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
