#!/usr/bin/env python3
"""Checks the time-block dispersions a history stored for ingested runs
(docs/history.md, "Tables", run_bursts) against the independent rule's
(block_dispersion.py --run on the same samples): for every function and
metric, the run's X^2 / df and its degrees of freedom, or nothing where
the rule has too few samples for one. That tests the importer's sample
times: a time read from the wrong field, in the wrong unit, or a stack's
count put in the wrong block scatters every function or none.

usage: compare_bursts.py [--collector NAME] [--min X] [--self-only]
                         [--only NAME,...] DB FORMAT SHA=WANT.json[:REL_TOL] ...
DB: a SQLite history; SHA: the git_sha of a bundle with one run, read as
FORMAT; WANT.json: block_dispersion.py --run's output for its file. The
stored self dispersion of the collector (gc_mark, or NAME) must be above
X (20 unless given): the bursts were seen. --self-only compares self
dispersions alone (a total with kernel frames below it is stored whole,
kernel time included, where the rule sets the kernel apart); --only
compares the functions named alone (a real recording's kernel samples
are among the steady samples of a stored run, not of the rule's, which
moves every dispersion a little: a tolerance then).
Function names are compared without GCC's .constprop.N/.isra.N/.part.N.
"""
import json
import math
import re
import sqlite3
import struct
import sys


def name(s):
    return re.sub(r"\.(constprop|isra|part)\.\d+$", "", s)


def varint(b, i):
    x = shift = 0
    while True:
        c = b[i]
        i += 1
        x |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            return x, i


def decode(blob, nrows):
    """run_packed's layout: {function id: [v0, v1, v2, v3]}, None for NULL."""
    out, i, fid = {}, 0, 0
    for _ in range(nrows):
        d, i = varint(blob, i)
        fid += d
        tag = blob[i]
        i += 1
        v = []
        for k in range(4):
            t = (tag >> (2 * k)) & 3
            if t == 0:
                v.append(None)
            elif t == 1:
                x, i = varint(blob, i)
                v.append(float(x))
            else:
                assert t == 2, tag
                v.append(struct.unpack("<d", blob[i:i + 8])[0])
                i += 8
        out[fid] = v
    assert i == len(blob), (i, len(blob))
    return out


def stored(db, sha):
    """{function: {"self": [x, df] or None, "total": ...}} of sha's run."""
    c = sqlite3.connect(db)
    runs = c.execute("SELECT id, format FROM runs WHERE git_sha = ?", (sha,)).fetchall()
    assert len(runs) == 1, (sha, runs)
    run, fmt = runs[0]
    names = {i: n for i, n in c.execute("SELECT id, name FROM functions")}
    row = c.execute("SELECT nrows, rows FROM run_bursts WHERE run_id = ?", (run,)).fetchone()
    rows = decode(bytes(row[1]), row[0]) if row else {}
    out = {}
    for fid, v in rows.items():
        out[name(names[fid])] = {
            "self": None if v[0] is None else [v[0] / 1000, v[1]],
            "total": None if v[2] is None else [v[2] / 1000, v[3]]}
    return fmt, out


def main():
    args = sys.argv[1:]
    collector, least, metrics, only = "gc_mark", 20.0, ("self", "total"), None
    while args[0].startswith("--"):
        if args[0] == "--collector":
            collector, args = args[1], args[2:]
        elif args[0] == "--min":
            least, args = float(args[1]), args[2:]
        elif args[0] == "--only":
            only, args = set(args[1].split(",")), args[2:]
        elif args[0] == "--self-only":
            metrics, args = ("self",), args[1:]
        else:
            sys.exit("unknown option " + args[0])
    db, fmt = args[0], args[1]
    for arg in args[2:]:
        sha, _, rest = arg.partition("=")
        path, _, tol = rest.partition(":")
        tol = float(tol or 1e-9)
        want = {name(f): v for f, v in json.load(open(path)).items()}
        got_fmt, got = stored(db, sha)
        assert got_fmt == fmt, (sha, got_fmt, fmt)
        seen = 0
        for f in sorted(only or set(want) | set(got)):
            for k in metrics:
                exp = want.get(f, {}).get(k)
                have = got.get(f, {}).get(k)
                assert (have is None) == (exp is None), (sha, f, k, have, exp)
                if exp is None:
                    continue
                # stored x 1000, rounded: half a thousandth either way
                assert abs(have[0] - exp[0]) <= 0.0005 + tol * exp[0], (sha, f, k, have, exp)
                assert have[1] == exp[1], (sha, f, k, have, exp)
                seen += 1
        assert seen >= (1 if only else 2), (sha, seen)
        g = got.get(collector, {}).get("self")
        assert g is not None and g[0] > least, (sha, collector, g)


main()
