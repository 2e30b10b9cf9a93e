#!/usr/bin/env python3
"""fake_forge.py STATE_DIR [--token T] [--page-size N] [--seed N] [--deny]
[--head SHA]: the parts of GitHub's REST API and GitLab's v4 API that
scripts/ci/pr-report.py calls, on 127.0.0.1 at a free port (written to
STATE_DIR/port once it listens), for the CI tests (t09xx).

GitHub: GET/POST /repos/O/R/issues/N/comments, PATCH
/repos/O/R/issues/comments/ID, GET /repos/O/R/pulls/N. GitLab: GET/POST
/api/v4/projects/P/merge_requests/N/notes, PUT .../notes/ID, GET
/api/v4/projects/P/merge_requests/N. Lists come N a page (--page-size)
with a Link header to the next page, as both forges send it; --seed puts
that many other people's comments (and, on GitLab, a system note) first,
so that the marked one is found on a later page. --deny answers 403 to
every POST, PATCH and PUT, as GitHub does for a fork's read-only token.
A wrong token gets 401. Every request is appended to STATE_DIR/requests
as one JSON line: method, path, query, token and body, with the answer's
status and the id of the comment it carried. Exits by itself
after two minutes, in case the test that started it did not stop it.
"""

import argparse
import http.server
import json
import os
import re
import sys
import threading
import urllib.parse

ap = argparse.ArgumentParser()
ap.add_argument("state")
ap.add_argument("--token", default="t0ken")
ap.add_argument("--page-size", type=int, default=2)
ap.add_argument("--seed", type=int, default=3)
ap.add_argument("--deny", action="store_true")
ap.add_argument("--head", default="")
opt = ap.parse_args()

lock = threading.Lock()
threads = {}  # (forge, project, number) -> list of comments
next_id = [1000]


def thread(key):
    if key not in threads:
        items = []
        for i in range(opt.seed):
            next_id[0] += 1
            # one of them quotes the marker, but not at its start
            body = f"looks good {i}" if i else "> <!-- perfdiff-comment: perfdiff -->\nquoted"
            items.append({"id": next_id[0], "body": body, "user": {"login": f"person{i}"}})
        if key[0] == "gitlab":
            next_id[0] += 1
            items.insert(0, {"id": next_id[0], "body": "<!-- perfdiff-comment: perfdiff --> added a commit",
                             "system": True})
        threads[key] = items
    return threads[key]


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def _token(self):
        auth = self.headers.get("Authorization") or ""
        if auth.startswith("Bearer "):
            return auth[7:]
        return self.headers.get("PRIVATE-TOKEN") or ""

    def _handle(self, method):
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else None
        with lock:
            if self._token() != opt.token:
                status, doc, headers = 401, {"message": "Bad credentials"}, []
            else:
                status, doc, headers = self._route(method, url.path, query, body)
            with open(os.path.join(opt.state, "requests"), "a") as f:
                f.write(json.dumps({"method": method, "path": url.path, "query": url.query,
                                    "token": self._token(), "body": body, "status": status,
                                    "id": doc.get("id") if isinstance(doc, dict) else None}) + "\n")
        data = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _route(self, method, path, query, body):
        gh = re.fullmatch(r"/repos/([^/]+/[^/]+)/issues/([0-9]+)/comments", path)
        gl = re.fullmatch(r"/api/v4/projects/([^/]+)/merge_requests/([0-9]+)/notes", path)
        if gh or gl:
            key = ("github" if gh else "gitlab",) + (gh or gl).groups()
            if method == "GET":
                return self._list(thread(key), path, query)
            if method == "POST":
                return self._create(key, body)
        gh = re.fullmatch(r"/repos/([^/]+/[^/]+)/issues/comments/([0-9]+)", path)
        gl = re.fullmatch(r"/api/v4/projects/([^/]+)/merge_requests/([0-9]+)/notes/([0-9]+)", path)
        if (gh and method == "PATCH") or (gl and method == "PUT"):
            return self._update(int((gh or gl).groups()[-1]), body)
        if method == "GET" and re.fullmatch(r"/repos/[^/]+/[^/]+/pulls/[0-9]+", path):
            return 200, {"head": {"sha": opt.head}}, []
        if method == "GET" and re.fullmatch(r"/api/v4/projects/[^/]+/merge_requests/[0-9]+", path):
            return 200, {"sha": opt.head}, []
        return 404, {"message": "Not Found"}, []

    def _list(self, items, path, query):
        per = min(int(query.get("per_page", ["30"])[0]), opt.page_size)
        page = int(query.get("page", ["1"])[0])
        chunk = items[(page - 1) * per:page * per]
        headers = []
        if page * per < len(items):
            q = dict((k, v[0]) for k, v in query.items())
            q["page"] = str(page + 1)
            port = self.server.server_address[1]
            nxt = f"http://127.0.0.1:{port}{path}?{urllib.parse.urlencode(q)}"
            headers.append(("Link", f'<{nxt}>; rel="next"'))
        return 200, chunk, headers

    def _create(self, key, body):
        if opt.deny:
            return 403, {"message": "Resource not accessible by integration"}, []
        if not isinstance(body, dict) or not isinstance(body.get("body"), str):
            return 422, {"message": "body missing"}, []
        next_id[0] += 1
        c = {"id": next_id[0], "body": body["body"], "user": {"login": "bot"},
             "html_url": f"https://forge.example/{key[1]}/{key[2]}#c{next_id[0]}"}
        thread(key).append(c)
        return 201, c, []

    def _update(self, cid, body):
        if opt.deny:
            return 403, {"message": "Resource not accessible by integration"}, []
        for items in threads.values():
            for c in items:
                if c["id"] == cid and not c.get("system"):
                    c["body"] = body["body"]
                    return 200, c, []
        return 404, {"message": "Not Found"}, []

    def do_GET(self):
        self._handle("GET")

    def do_POST(self):
        self._handle("POST")

    def do_PATCH(self):
        self._handle("PATCH")

    def do_PUT(self):
        self._handle("PUT")


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
stop = threading.Timer(120, server.shutdown)
stop.daemon = True
stop.start()
with open(os.path.join(opt.state, "port.tmp"), "w") as f:
    f.write(str(server.server_address[1]))
os.rename(os.path.join(opt.state, "port.tmp"), os.path.join(opt.state, "port"))
server.serve_forever()
sys.exit(0)
