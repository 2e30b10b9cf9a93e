#!/usr/bin/env python3
"""Each function's time-block dispersion, computed independently from a
perf script text, as docs/statistics.md ("Bursty functions") defines it,
for the two sides of a comparison; prints the dispersion each bursty
function's variance is raised to, as JSON {function: {"self": x,
"total": y}} (null where not bursty). It reads the simple perf script
layout the tests write (a header with a time, frames "addr sym+off
(dso)", leaf first); functions are the symbol names, system frames those
of [kernel.kallsyms].

With --spans the samples are read as an evented profile holds them: each
sample lasts until the next (the last one 1 ms), consecutive samples of
one stack are one span, and a span's length is spread over the blocks it
covers; the first gap is then the first span's length.

Counts in a single stretch of the run (a phase of the program: active
blocks, those with at least half of the function's even share, all
together) have a dispersion of at most 1, sampling's.

With --run, the dispersions of one run as a history stores them
(docs/history.md, "Tables", run_bursts): {function: {"self": [x, df],
"total": [y, df]}}, x the run's X^2 / df (null where too few samples).

usage: block_dispersion.py [--spans] BASE.txt CAND.txt
       block_dispersion.py --run [--spans] FILE.txt
"""
import json
import math
import statistics
import sys

BLOCKS = 16


def read(path):
    samples = []  # (time, [function leaf first])
    cur = None
    for line in open(path):
        if not line.strip():
            continue
        if not line.startswith("\t"):
            tok = [t for t in line.split() if t.endswith(":")]
            cur = (float(tok[0][:-1]), [])
            samples.append(cur)
        else:
            addr, rest = line.strip().split(" ", 1)
            sym, dso = rest.rsplit(" (", 1)
            cur[1].append((sym.split("+0x")[0], dso.rstrip(")") == "[kernel.kallsyms]"))
    return samples


def spans_of(samples):
    """(start, end, frames) of each run of samples of one stack."""
    out = []
    for i, (t, frames) in enumerate(samples):
        end = samples[i + 1][0] if i + 1 < len(samples) else t + 0.001
        if out and out[-1][2] == frames and out[-1][1] == t:
            out[-1] = (out[-1][0], end, frames)
        else:
            out.append((t, end, frames))
    return out


def span_blocks(spans):
    """Each span's share of each block it covers: [(block, share)]."""
    t0 = spans[0][0]
    w = (spans[0][1] - t0) / 8
    tmax = max(e for _, e, _ in spans)
    while (tmax - t0) / w >= BLOCKS:
        w *= 2
    used = int((tmax - t0) / w) + 1
    out = []
    for a, e, _ in spans:
        k0, k1 = min(int((a - t0) / w), used - 1), min(int((e - t0) / w), used - 1)
        parts = []
        for k in range(k0, k1 + 1):
            lo = a if k == k0 else max(a, t0 + k * w)
            hi = e if k == k1 else min(e, t0 + (k + 1) * w)
            if hi > lo:
                parts.append((k, (hi - lo) * 1000))  # ms, as counted
        out.append(parts)
    return out, used


def blocks(samples):
    """Block of each sample: the width is the first gap over 8, doubled
    until the whole span fits in BLOCKS blocks."""
    t0 = samples[0][0]
    gap = next(t - t0 for t, _ in samples if t > t0)
    w = gap / 8
    tmax = max(t for t, _ in samples)
    while (tmax - t0) / w >= BLOCKS:
        w *= 2
    return [0 if t <= t0 else int((t - t0) / w) for t, _ in samples]


def stretches(c, e, K, C, E):
    """Separate runs of active blocks (at least half the even share),
    over the blocks with exposure: one for a function of one phase."""
    runs, prev = 0, None
    for k in K:
        on = c[k] >= 0.5 * C * e[k] / E
        if on and prev is not True:
            runs += 1
        prev = on if (on or prev is not None) else None
    return runs


def pearson(c, e, cap=True):
    K = [k for k in range(len(e)) if e[k] > 0]
    C, E = sum(c[k] for k in K), sum(e[k] for k in K)
    if len(K) < 4 or C < 3 * len(K):
        return None
    x2 = sum((c[k] - C * e[k] / E) ** 2 / (C * e[k] / E) for k in K)
    # the search for bursts to take out of the steady samples caps nothing
    if cap and x2 > len(K) - 1 and stretches(c, e, K, C, E) < 2:
        x2 = len(K) - 1
    return x2, len(K) - 1


def chi2_q999(df):
    h = 2 / (9 * df)
    return (1 - h + 3.09 * math.sqrt(h)) ** 3


def side(path, spans):
    s = read(path)
    if spans:
        sp = spans_of(s)
        parts, used = span_blocks(sp)
        items = [(frames, pt) for (_, _, frames), pt in zip(sp, parts)]
    else:
        blk = blocks(s)
        used = max(blk) + 1
        items = [(frames, [(b, 1)]) for (_, frames), b in zip(s, blk)]
    selfc, totc, system = {}, {}, {}
    prog, allc = [0] * used, [0] * used
    for frames, pts in items:
        leaf, sysleaf = frames[0]
        for name, sy in frames:
            system[name] = sy
        for b, x in pts:
            allc[b] += x
            selfc.setdefault(leaf, [0] * used)[b] += x
            # system frames below the program's are set apart: the
            # program's functions count the sample only when its leaf is
            # the program's
            if not sysleaf:
                prog[b] += x
                for name in set(n for n, sy in frames if not sy):
                    totc.setdefault(name, [0] * used)[b] += x
            else:
                for name in set(n for n, sy in frames if sy):
                    totc.setdefault(name, [0] * used)[b] += x
    # the steady samples: the burstiest program function out, in turn
    steady, out = prog[:], set()
    for _ in range(8):
        best, most = None, 0
        for f, c in selfc.items():
            if system[f] or f in out:
                continue
            r = pearson(c, steady, cap=False)
            if r and r[0] / r[1] > chi2_q999(r[1]) and r[0] / r[1] > most:
                best, most = f, r[0] / r[1]
        if best is None:
            break
        out.add(best)
        steady = [x - y if x - y > 0.5 else 0 for x, y in zip(steady, selfc[best])]
    if sum(steady) < sum(prog) / 2:
        steady, out = prog, set()
    res = {}
    for k, table in (("self", selfc), ("total", totc)):
        for f, c in table.items():
            # against the steady samples (system frames: all samples);
            # a bursty one also against the steady samples and its own
            # (a block all burst counts there), the larger of the two
            e = allc if system[f] else steady
            r = pearson(c, e)
            if f in out:
                r2 = pearson(c, [x + y for x, y in zip(steady, selfc[f])])
                if r2 and (not r or r2[0] / r2[1] > r[0] / r[1]):
                    r = r2
            res.setdefault(f, {})[k] = r
    return res, system


def chi2_sf(x, df):
    """Upper tail for whole df: the closed forms by parity."""
    y = x / 2
    if df % 2 == 0:
        term = s = 1.0
        for k in range(1, df // 2):
            term *= y / k
            s += term
        return math.exp(-y) * s
    s, term = math.erfc(math.sqrt(y)), math.sqrt(y) * math.exp(-y) / math.gamma(1.5)
    for k in range(1, (df - 1) // 2 + 1):
        s += term
        term *= y / (k + 0.5)
    return s


def main():
    args = sys.argv[1:]
    run = args[0] == "--run"
    if run:
        args = args[1:]
    spans = args[0] == "--spans"
    if spans:
        args = args[1:]
    if run:
        res, _ = side(args[0], spans)
        out = {f: {k: None if not r.get(k) else [r[k][0] / r[k][1], r[k][1]]
                   for k in ("self", "total")} for f, r in res.items()}
        json.dump(out, sys.stdout, indent=1, sort_keys=True)
        return
    a, sysa = side(args[0], spans)
    b, sysb = side(args[1], spans)
    system = {**sysa, **sysb}
    funcs = set(a) | set(b)

    def pooled(f, k):
        x2 = df = 0
        for s in (a, b):
            r = s.get(f, {}).get(k)
            if r:
                x2, df = x2 + r[0], df + r[1]
        return (x2 / df, df) if df else None

    common = [pooled(f, "self")[0] for f in funcs
              if not system[f] and pooled(f, "self")]
    common = max(1.0, statistics.median(common)) if common else 1.0
    out = {}
    for f in sorted(funcs):
        out[f] = {}
        for k in ("self", "total"):
            p = pooled(f, k)
            if p and chi2_sf(p[0] * p[1], p[1]) < 0.01:
                # moderated up toward the common dispersion, never down
                out[f][k] = max(p[0], (p[1] * p[0] + 8 * common) / (p[1] + 8))
            else:
                out[f][k] = None
    json.dump(out, sys.stdout, indent=1, sort_keys=True)


main()
