#!/usr/bin/env python3
"""perfdiff benchmark: generates large inputs and reports MB/s and peak RSS.

usage: tests/bench/bench.py [--perf-mb 100] [--speedscope-mb 1000] [--folded-mb 100]
                            [--cpuprofile-mb 100] [--pprof-mb 100] [--dhat-mb 100]
                            [--callgrind-mb 100] [--etl-mb 1000]
                            [--firefox-mb 1000] [--long-string-mb 50]
                            [--sidecar-mb 150]
Needs a built tree (build/perfdiff, build/tests/bench_gen,
build/tests/bench_readloop: the read()+memchr yardstick). Each run is a
fresh process, so peak RSS is that run's alone. Not part of the test suite.
"""
import argparse
import os
import resource
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


TIME = "/usr/bin/time"


def measure(cmd):
    """Runs cmd in a child; returns (seconds, peak RSS MB, exit status).
    The peak is GNU time's report of cmd alone when it is installed: a
    child started from this process counts this process's memory in its
    peak before it executes cmd (a generator may have held a gigabyte)."""
    rss_file = None
    if os.path.exists(TIME):
        fd, rss_file = tempfile.mkstemp(prefix="pdbench-rss-")
        os.close(fd)
        cmd = [TIME, "-f", "%M", "-o", rss_file] + list(cmd)
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL)
    dt = time.monotonic() - t0
    if rss_file:
        with open(rss_file) as f:
            lines = [l for l in f.read().split("\n") if l.strip().isdigit()]
        os.unlink(rss_file)
        rss = int(lines[-1]) / 1024.0 if lines else float("nan")
    else:
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
    return dt, rss, p.returncode


def gen_cpuprofile(mb, seed, path):
    """A DevTools-shaped .cpuprofile: 4000 nodes (a tree of depth up to 30),
    then samples and timeDeltas until the file is mb megabytes."""
    import random
    rnd = random.Random(seed)
    n_nodes = 4000
    with open(path, "w") as f:
        f.write('{"nodes":[')
        kids = {i: [] for i in range(1, n_nodes + 1)}
        parent = {1: None}
        depth = {1: 0}
        for i in range(2, n_nodes + 1):
            p = rnd.randint(max(1, i - 200), i - 1)
            while depth[p] >= 30:
                p = parent[p]
            parent[i], depth[i] = p, depth[p] + 1
            kids[p].append(i)
        for i in range(1, n_nodes + 1):
            name = "(root)" if i == 1 else "fn_%d" % (i % 1500)
            f.write('%s{"id":%d,"callFrame":{"functionName":"%s","scriptId":"%d",'
                    '"url":"file:///app/src/mod%d.js","lineNumber":%d,'
                    '"columnNumber":4},"hitCount":0,"children":[%s]}'
                    % ("," if i > 1 else "", i, name, i % 40, i % 40, i % 900,
                       ",".join(map(str, kids[i]))))
        f.write('],"startTime":1000000,"endTime":0,"samples":[')
        # each sample is about 6 bytes in samples + 4 in timeDeltas
        n = int(mb * 1e6 / 10)
        leaves = [i for i in range(2, n_nodes + 1) if not kids[i]]
        f.write(",".join(str(rnd.choice(leaves)) for _ in range(n)))
        f.write('],"timeDeltas":[')
        f.write(",".join(str(rnd.randint(90, 140)) for _ in range(n)))
        f.write("]}")


sys.path.insert(0, os.path.join(ROOT, "tests", "tools"))
from pprof_make import varint as _varint  # noqa: E402


def _field(num, payload):
    return _varint(num << 3 | 2) + _varint(len(payload)) + payload


def gen_pprof(mb, seed, path):
    """An uncompressed Go-shaped CPU profile: 3000 functions, 20000
    locations (some with an inlined line), then samples until the file is
    mb megabytes. As Go's runtime/pprof writes it, identical stacks are
    merged: each sample message is a distinct stack (5-40 deep, sharing
    a random earlier stack's prefix, each location calling one of three
    others, as the stacks of one program do) with its count, so a large
    file means many distinct stacks."""
    import random
    rnd = random.Random(seed)
    out = bytearray()
    strings = ["", "samples", "count", "cpu", "nanoseconds", "/app/server"]
    strings += ["pkg%d.Func%d" % (i % 50, i) for i in range(3000)]
    vt = lambda t, u: _field(1, _varint(1 << 3) + _varint(t) + _varint(2 << 3) + _varint(u))
    out += vt(1, 2) + vt(3, 4)
    recent = [[rnd.randint(1, 20000) for _ in range(10)]]
    target = mb * 1e6
    chunk = []
    size = len(out)
    seen = set()
    while size < target:
        base = recent[rnd.randrange(len(recent))]
        cut = rnd.randint(1, len(base))
        locs = base[:cut]
        # a location calls one of three others, as code has few callees
        for _ in range(rnd.randint(1, 40 - cut) if cut < 40 else 0):
            locs.append((locs[-1] * 7 + rnd.randrange(3) * 997) % 20000 + 1)
        while len(locs) < 5:
            locs.append((locs[-1] * 7 + rnd.randrange(3) * 997) % 20000 + 1)
        key = tuple(locs)
        if key in seen:
            continue
        seen.add(key)
        if len(recent) < 2000:
            recent.append(locs)
        else:
            recent[rnd.randrange(2000)] = locs
        # leaf first, as pprof stores location ids
        st = b"".join(_varint(x) for x in reversed(locs))
        k = max(1, int(rnd.paretovariate(1.2)))
        body = _field(1, st) + _field(2, _varint(k) + _varint(k * 10000000))
        rec = _field(2, body)
        chunk.append(rec)
        size += len(rec)
    out += b"".join(chunk)
    out += _field(3, _varint(1 << 3) + _varint(1) + _varint(5 << 3) + _varint(5))
    for loc in range(1, 20001):
        lines = _field(4, _varint(1 << 3) + _varint(loc % 3000 + 1))
        if loc % 7 == 0:
            lines = _field(4, _varint(1 << 3) + _varint((loc * 13) % 3000 + 1)) + lines
        out += _field(4, _varint(1 << 3) + _varint(loc) + _varint(2 << 3) + _varint(1) + lines)
    for fn in range(1, 3001):
        out += _field(5, _varint(1 << 3) + _varint(fn) + _varint(2 << 3) + _varint(5 + fn))
    for s_ in strings:
        out += _field(6, s_.encode())
    out += _field(11, _varint(1 << 3) + _varint(3) + _varint(2 << 3) + _varint(4))
    out += _varint(12 << 3) + _varint(10000000)
    with open(path, "wb") as f:
        f.write(out)


def gen_dhat(mb, seed, path):
    """A valgrind-shaped DHAT file: program points with all the measures,
    their stacks paths of a 50000-node call tree over 20000 frames (as
    real allocation sites share their callers), until the file is mb
    megabytes."""
    import random
    rnd = random.Random(seed)
    parent, frame, depth = [None], [1], [0]
    for i in range(1, 50000):
        p = rnd.randint(max(0, i - 500), i - 1)
        while depth[p] >= 30:
            p = parent[p]
        parent.append(p)
        depth.append(depth[p] + 1)
        frame.append(rnd.randint(2, 19999))
    def fs_of(n):
        out = [1]  # malloc, the leaf
        while n is not None:
            out.append(frame[n])
            n = parent[n]
        return out
    with open(path, "w") as f:
        f.write('{"dhatFileVersion":2\n,"mode":"heap","verb":"Allocated"\n'
                ',"bklt":true,"bkacc":true\n,"tu":"instrs","Mtu":"Minstr"\n'
                ',"tuth":500\n,"cmd":"./app"\n,"pid":1\n,"te":1000\n'
                ',"tg":500\n,"pps":\n [')
        size, i = 0, 0
        while size < mb * 1e6:
            fs = fs_of(rnd.randrange(50000))
            tb = rnd.randint(16, 100000)
            rec = ('%s{"tb":%d,"tbk":%d\n  ,"tl":%d\n  ,"mb":%d,"mbk":1\n'
                   '  ,"gb":%d,"gbk":1\n  ,"eb":0,"ebk":0\n  ,"rb":%d,"wb":%d\n'
                   '  ,"fs":[%s]\n  }\n' % ("," if i else "", tb, rnd.randint(1, 9),
                                           rnd.randint(1, 10**7), tb, tb, tb * 2,
                                           tb * 3, ",".join(map(str, fs))))
            f.write(rec)
            size += len(rec)
            i += 1
        f.write(' ]\n,"ftbl":\n ["[root]"\n ,"0x1: malloc (in /usr/libexec/valgrind/'
                'vgpreload_dhat-amd64-linux.so)"\n')
        for k in range(2, 20000):
            f.write(' ,"0x%x: mod%d::fn%d (src/m%d.c:%d)"\n' % (k, k % 90, k, k % 90, k % 700))
        f.write(' ]\n}\n')


def gen_etl(mb, seed, path):
    """An ETW trace as a kernel logger writes one, in 64 KiB buffers: four
    processes of 8 threads, their images, then CPU samples (80 % in the
    first process), each with its user half and, for a third of the 5000
    stacks (depth 8 to 40), a kernel half; a quarter of the user halves by
    key (defined when the kernel drops the key: every 4096 references).
    The program's stacks are fixed, so a longer trace is more samples of
    the same model. Written as it goes, until mb megabytes."""
    import random
    sys.path.insert(0, os.path.join(ROOT, "tests", "tools"))
    import etl_make as em
    rnd = random.Random(seed)
    spec = {"processes": [{"pid": 100 + i, "name": "app%d.exe" % i}
                          for i in range(4)],
            "threads": [{"pid": 100 + i, "tid": 1000 + 10 * i + k}
                        for i in range(4) for k in range(8)],
            "images": [{"pid": 100 + i, "base": 0x140000000, "size": 1 << 24,
                        "path": "C:\\app\\app%d.exe" % i} for i in range(4)]
            + [{"pid": 0, "base": 0xfffff80000000000, "size": 1 << 24,
                "path": "C:\\Windows\\system32\\ntoskrnl.exe"}]}
    stacks = [[0x140000000 + rnd.randrange(1 << 24)
               for _ in range(rnd.randint(8, 40))] for _ in range(5000)]
    kstacks = [[0xfffff80000000000 + rnd.randrange(1 << 24)
                for _ in range(rnd.randint(4, 16))] for _ in range(200)]
    target = int(mb * 1e6)
    out = open(path, "wb")
    cur, written = bytearray(), 0

    def flush():
        nonlocal cur, written
        saved = 72 + len(cur)
        head = struct.pack("<IIIiQQQIIIHH", em.BUF, saved, 0, 0, 0, 0, 0, 0,
                           3, saved, 0, 0) + bytes(16)
        out.write(head + cur + b"\xff" * (em.BUF - saved))
        written += em.BUF
        cur = bytearray()

    def put(e):
        e = e + bytes(-len(e) % 8)
        if 72 + len(cur) + len(e) > em.BUF:
            flush()
        cur.extend(e)

    for e in em.events(spec):
        put(e)
    ts, key, live = 1000, 0x5000, {}
    while written < target:
        ts += 10
        proc = 0 if rnd.random() < 0.8 else rnd.randint(1, 3)
        tid = 1000 + 10 * proc + rnd.randrange(8)
        pick = rnd.randrange(len(stacks))
        user = stacks[pick]
        kernel = kstacks[pick % len(kstacks)] if pick % 3 == 0 else None
        ip = (kernel or user)[0]
        put(em.perfinfo(15, 46, struct.pack("<QIHH", ip, tid, 1, 0), ts))
        head = struct.pack("<QII", ts, 100 + proc, tid)
        if kernel:
            put(em.system(0x18, 32, 2, head + b"".join(
                struct.pack("<Q", a) for a in kernel)))
        if rnd.random() < 0.25:
            live[key] = user
            put(em.system(0x18, 38, 2, head + struct.pack("<Q", key), ts=ts))
            key += 1
            if len(live) == 4096:
                for k, fr in live.items():
                    put(em.system(0x18, 35, 2, struct.pack("<Q", k) + b"".join(
                        struct.pack("<Q", a) for a in fr), ts=ts))
                live = {}
        else:
            put(em.system(0x18, 32, 2, head + b"".join(
                struct.pack("<Q", a) for a in user)))
    for k, fr in live.items():
        put(em.system(0x18, 36, 2, struct.pack("<Q", k) + b"".join(
            struct.pack("<Q", a) for a in fr), ts=ts + 1))
    flush()
    out.close()


def gen_callgrind(mb, seed, path):
    """A callgrind file as valgrind --tool=callgrind --dump-instr=yes writes
    one: 20000 functions in 8 objects, each calling 3 of the functions
    after it (a call graph shared as a real program's is, without
    recursion), names compressed, positions relative, the inclusive costs
    of calls adding up; the functions' cost lines repeat until the file is
    mb megabytes."""
    import random
    rnd = random.Random(seed)
    n = 20000
    calls = [sorted(rnd.sample(range(i + 1, min(n, i + 400)), 3))
             if i < n - 400 else [] for i in range(n)]
    # each function's self per round of its lines, and the file's rounds
    lines = [rnd.randint(5, 40) for _ in range(n)]
    costs = [[rnd.randint(1, 60) for _ in range(k)] for k in lines]
    # about 8 bytes a cost line, 60 a call, written once
    rounds = max(1, int((mb * 1e6 - 60 * 3 * n) / (8 * sum(lines))))
    self_ = [sum(c) * rounds for c in costs]
    # inclusive costs, callees first: a callee's share to each caller
    callers = [[] for _ in range(n)]
    for i, cs in enumerate(calls):
        for j in cs:
            callers[j].append(i)
    incl = [0] * n
    arc = {}
    for j in range(n - 1, -1, -1):
        incl[j] = self_[j] + sum(arc[(j, k)] for k in calls[j])
        if not callers[j]:
            continue
        w = [rnd.randint(1, 9) for _ in callers[j]]
        left = incl[j]
        for k, i in enumerate(callers[j]):
            share = left if k == len(w) - 1 else incl[j] * w[k] // sum(w)
            arc[(i, j)] = share
            left -= share
    named = set()

    def ref(kind, i, text):
        if (kind, i) in named:
            return "(%d)" % i
        named.add((kind, i))
        return "(%d) %s" % (i, text)

    with open(path, "w") as f:
        f.write("# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\n"
                "pid: 4242\ncmd:  ./app\npart: 1\n\npositions: instr line\n"
                "events: Ir\nsummary: %d\n\n" % sum(self_))
        for i in range(n):
            ob, fl = i % 8, i // 50
            f.write("ob=%s\nfl=%s\nfn=%s\n" % (
                ref("ob", ob, "/usr/lib/libapp%d.so" % ob),
                ref("fl", fl, "src/mod%d/file%d.c" % (ob, fl)),
                ref("fn", i, "app::mod%d::fn_%d(int, char const*)" % (ob, i))))
            f.write("0x%x %d %d\n" % (0x10000 + 64 * i, 10 + i % 90,
                                      costs[i][0]))
            block = "".join("+%d * %d\n" % (rnd.randint(1, 7), c)
                            for c in costs[i][1:])
            f.write(block)
            for _ in range(rounds - 1):
                f.write("-%d +1 %d\n" % (rnd.randint(1, 99), costs[i][0]))
                f.write(block)
            for j in calls[i]:
                if calls[i] and arc.get((i, j)):
                    if j % 8 != ob:
                        f.write("cob=%s\n" % ref("ob", j % 8,
                                                 "/usr/lib/libapp%d.so" % (j % 8)))
                    f.write("cfi=%s\ncfn=%s\ncalls=%d 0x%x %d\n* * %d\n" % (
                        ref("fl", j // 50, "src/mod%d/file%d.c" % (j % 8, j // 50)),
                        ref("fn", j, "app::mod%d::fn_%d(int, char const*)"
                            % (j % 8, j)),
                        rounds, 0x10000 + 64 * j, 10 + j % 90, arc[(i, j)]))
            f.write("\n")
        f.write("totals: %d\n" % sum(self_))


def gen_long_string(mb, seed, path):
    """A speedscope file whose one frame name is mb megabytes long."""
    with open(path, "w") as f:
        f.write('{"$schema":"https://www.speedscope.app/file-format-schema.json",'
                '"shared":{"frames":[{"name":"')
        unit = "frame%d\\u00e9\\\"" % seed
        for _ in range(int(mb * 1e6 / len(unit) / 4096) + 1):
            f.write(unit * 4096)
        f.write('"},{"name":"b"}]},"profiles":[{"type":"sampled","name":"p",'
                '"unit":"none","startValue":0,"endValue":2,'
                '"samples":[[0,1],[0]],"weights":[1,1]}]}')


def gen_sidecar(mb, seed, path):
    """A samply profile (processed format) of one library whose 2000 frames
    are addresses, and next to it a .syms.json sidecar of mb megabytes:
    the known addresses of a large binary (4 per symbol) and its names."""
    import json
    import random
    rnd = random.Random(seed)
    side = path[:-len(".json")] + ".syms.json"
    n_sym = max(1000, int(mb * 1e6 / 150))
    with open(side, "w") as f:
        f.write('{"string_table":[')
        f.write(",".join('"%s"' % ("ns%d::Class%d::method_%d(int, char const*)"
                                    % (i % 97, i % 3001, i)) for i in range(n_sym)))
        f.write('],"data":[{"debug_name":"app","debug_id":"%s","code_id":"",'
                '"symbol_table":[' % ("00112233445566778899AABBCCDDEEFF0"))
        f.write(",".join('{"rva":%d,"size":64,"symbol":%d}' % (64 * i, i)
                         for i in range(n_sym)))
        f.write('],"known_addresses":[')
        f.write(",".join("[%d,%d]" % (64 * i + k, i) for i in range(n_sym)
                         for k in (3, 9, 17, 33)))
        f.write("]}]}")
    fixed = random.Random(0)  # both sides: the same binary's frames
    frames = [64 * fixed.randrange(n_sym) + 9 for _ in range(2000)]
    samples = [rnd.randrange(2000) for _ in range(200000)]
    thread = {
        "name": "app", "processName": "app", "pid": "1", "tid": 1,
        "samples": {"length": len(samples), "stack": samples,
                    "time": list(range(len(samples))), "weight": None,
                    "weightType": "samples"},
        "stackTable": {"length": 2000, "frame": list(range(2000)),
                       "prefix": [None] * 2000},
        "frameTable": {"length": 2000, "address": frames,
                       "func": list(range(2000)), "nativeSymbol": [None] * 2000,
                       "inlineDepth": [0] * 2000, "category": [0] * 2000},
        "funcTable": {"length": 2000, "name": list(range(2000)),
                      "resource": [0] * 2000, "isJS": [False] * 2000,
                      "fileName": [None] * 2000},
        "resourceTable": {"length": 1, "lib": [0], "name": [2000], "type": [1]},
        "nativeSymbols": {"length": 0, "libIndex": [], "address": [], "name": []},
        "stringArray": ["0x%x" % a for a in frames] + ["app"],
    }
    prof = {"meta": {"interval": 1.0, "preprocessedProfileVersion": 49,
                     "version": 24, "symbolicated": False, "startTime": 0},
            "libs": [{"name": "app", "path": "/opt/app", "debugName": "app",
                      "debugPath": "/opt/app",
                      "breakpadId": "00112233445566778899AABBCCDDEEFF0",
                      "codeId": "", "arch": "x86_64"}],
            "threads": [thread]}
    with open(path, "w") as f:
        json.dump(prof, f)
    return os.path.getsize(side)


def gen_firefox(mb, seed, path):
    """A samply-shaped processed Firefox Profiler profile (version 49,
    symbolicated): 4 threads with their own tables (5000 stacks sharing
    prefixes over 3000 functions in 6 libraries), and samples as samply
    writes them: stack, time in ms with 6 decimals, weight null,
    threadCPUDelta in microseconds. Written a thread at a time; samples
    until the file is mb megabytes."""
    import random
    rnd = random.Random(seed)
    nthreads, nstack, nfunc = 4, 5000, 3000
    per = int(mb * 1e6 / nthreads / 22)  # about 22 bytes a sample
    with open(path, "w") as f:
        f.write('{"meta":{"interval":1.0,"preprocessedProfileVersion":49,'
                '"version":24,"product":"app","symbolicated":true,'
                '"sampleUnits":{"time":"ms","eventDelay":"ms",'
                '"threadCPUDelta":"\u00b5s"},"categories":[{"name":"Other",'
                '"color":"grey","subcategories":["Other"]}]},')
        f.write('"libs":[%s],' % ",".join(
            '{"name":"lib%d.so","path":"/usr/lib/lib%d.so","debugName":'
            '"lib%d.so","debugPath":"/usr/lib/lib%d.so","breakpadId":'
            '"%032X0","codeId":"%040x","arch":"x86_64"}' % (i, i, i, i, i, i)
            for i in range(6)))
        f.write('"threads":[')
        for t in range(nthreads):
            prefix, frame = [None], [0]
            for i in range(1, nstack):
                prefix.append(rnd.randrange(i))
                frame.append(rnd.randrange(nfunc))
            hot = [rnd.randrange(nstack) for _ in range(400)]
            f.write('%s{"name":"Worker %d","processName":"app","pid":"42",'
                    '"tid":"%d","samples":{"stack":[' % ("," if t else "",
                                                         t, 100 + t))
            f.write(",".join(str(hot[int(rnd.random() ** 2 * 400)])
                             for _ in range(per)))
            f.write('],"time":[')
            f.write(",".join("%.6f" % (1000 + i * 1.000137)
                             for i in range(per)))
            f.write('],"weight":null,"weightType":"samples",'
                    '"threadCPUDelta":[')
            f.write(",".join(str(900 + rnd.randrange(200))
                             for _ in range(per)))
            f.write('],"length":%d},' % per)
            f.write('"stackTable":{"length":%d,"prefix":[%s],"frame":[%s],'
                    '"category":[%s],"subcategory":[%s]},' % (
                        nstack, ",".join("null" if x is None else str(x)
                                         for x in prefix),
                        ",".join(map(str, frame)), ",".join(["0"] * nstack),
                        ",".join(["0"] * nstack)))
            f.write('"frameTable":{"length":%d,"address":[%s],'
                    '"inlineDepth":[%s],"category":[%s],"func":[%s],'
                    '"nativeSymbol":[%s],"line":[%s],"column":[%s]},' % (
                        nfunc, ",".join(str(0x1000 + 16 * i)
                                        for i in range(nfunc)),
                        ",".join(["0"] * nfunc), ",".join(["0"] * nfunc),
                        ",".join(map(str, range(nfunc))),
                        ",".join(["null"] * nfunc), ",".join(["null"] * nfunc),
                        ",".join(["null"] * nfunc)))
            f.write('"funcTable":{"length":%d,"name":[%s],"isJS":[%s],'
                    '"relevantForJS":[%s],"resource":[%s],"fileName":[%s],'
                    '"lineNumber":[%s],"columnNumber":[%s]},' % (
                        nfunc, ",".join(str(6 + i) for i in range(nfunc)),
                        ",".join(["false"] * nfunc),
                        ",".join(["false"] * nfunc),
                        ",".join(str(i % 6) for i in range(nfunc)),
                        ",".join(["null"] * nfunc), ",".join(["null"] * nfunc),
                        ",".join(["null"] * nfunc)))
            f.write('"resourceTable":{"length":6,"lib":[0,1,2,3,4,5],'
                    '"name":[0,1,2,3,4,5],"host":[null,null,null,null,null,'
                    'null],"type":[1,1,1,1,1,1]},')
            f.write('"nativeSymbols":{"length":0,"address":[],'
                    '"functionSize":[],"libIndex":[],"name":[]},')
            f.write('"stringArray":[%s]}' % ",".join(
                ['"lib%d.so"' % i for i in range(6)] +
                ['"app::module%d::Type::method_%d(int, char const*)"' % (i % 40, i)
                 for i in range(nfunc)]))
        f.write('],"pages":[],"counters":[]}')
    return os.path.getsize(path)


def gen(kind, mb, seed, path):
    if kind == "long-string" and not os.path.exists(path):
        gen_long_string(mb, seed, path)
    if kind == "sidecar":
        return gen_sidecar(mb, seed, path) + os.path.getsize(path)
    if kind == "cpuprofile" and not os.path.exists(path):
        gen_cpuprofile(mb, seed, path)
    if kind == "pprof" and not os.path.exists(path):
        gen_pprof(mb, seed, path)
    if kind == "dhat" and not os.path.exists(path):
        gen_dhat(mb, seed, path)
    if kind == "callgrind" and not os.path.exists(path):
        gen_callgrind(mb, seed, path)
    if kind == "etl" and not os.path.exists(path):
        gen_etl(mb, seed, path)
    if kind == "firefox" and not os.path.exists(path):
        gen_firefox(mb, seed, path)
    if not os.path.exists(path):
        with open(path, "wb") as f:
            subprocess.run([os.path.join(ROOT, "build/tests/bench_gen"), kind,
                            str(mb), str(seed)], stdout=f, check=True)
    return os.path.getsize(path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--perf-mb", type=float, default=100)
    ap.add_argument("--speedscope-mb", type=float, default=1000)
    ap.add_argument("--folded-mb", type=float, default=100)
    ap.add_argument("--cpuprofile-mb", type=float, default=100)
    ap.add_argument("--pprof-mb", type=float, default=100)
    ap.add_argument("--dhat-mb", type=float, default=100)
    ap.add_argument("--callgrind-mb", type=float, default=100)
    ap.add_argument("--etl-mb", type=float, default=1000)
    ap.add_argument("--firefox-mb", type=float, default=1000)
    ap.add_argument("--long-string-mb", type=float, default=50,
                    help="one JSON string (a frame name) this long")
    ap.add_argument("--sidecar-mb", type=float, default=150,
                    help="a samply profile with a .syms.json this large")
    ap.add_argument("--dir", default=tempfile.gettempdir())
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    pd = os.path.join(ROOT, "build/perfdiff")
    loop = os.path.join(ROOT, "build/tests/bench_readloop")
    rows = []
    made = []
    for kind, mb, ext in (("perf", a.perf_mb, "perf.txt"),
                          ("folded", a.folded_mb, "folded"),
                          ("speedscope", a.speedscope_mb, "speedscope.json"),
                          ("cpuprofile", a.cpuprofile_mb, "cpuprofile"),
                          ("pprof", a.pprof_mb, "pb"),
                          ("dhat", a.dhat_mb, "dhat.json"),
                          ("callgrind", a.callgrind_mb, "callgrind.out"),
                          ("etl", a.etl_mb, "etl"),
                          ("firefox", a.firefox_mb, "json"),
                          ("long-string", a.long_string_mb, "speedscope.json"),
                          ("sidecar", a.sidecar_mb, "json")):
        if mb <= 0:
            continue
        base = os.path.join(a.dir, "pdbench-base-%g.%s" % (mb, ext))
        cand = os.path.join(a.dir, "pdbench-cand-%g.%s" % (mb, ext))
        made += [base, cand]
        if kind == "sidecar":
            made += [p[:-len(".json")] + ".syms.json" for p in (base, cand)]
        nb = gen(kind, mb, 0, base)
        nc = gen(kind, mb, 1, cand)
        dt, rss, st = measure([pd, "show", "-f", "json", base])
        rows.append(("import " + kind, nb, dt, rss, st))
        if kind == "perf":
            # the yardstick: read() and memchr over the same file
            dt, rss, st = measure([loop, base])
            rows.append(("read+memchr loop " + kind, nb, dt, rss, st))
        dt, rss, st = measure([pd, "-f", "json", base, cand])
        rows.append(("diff " + kind + " pair", nb + nc, dt, rss, st))
    # FlameGraph's pipeline, when its scripts are on PATH, for comparison.
    import shutil
    sc, dfp = shutil.which("stackcollapse-perf.pl"), shutil.which("difffolded.pl")
    if sc and dfp and a.perf_mb > 0:
        base = os.path.join(a.dir, "pdbench-base-%g.perf.txt" % a.perf_mb)
        cand = os.path.join(a.dir, "pdbench-cand-%g.perf.txt" % a.perf_mb)
        n = os.path.getsize(base) + os.path.getsize(cand)
        t0 = time.monotonic()
        fa, fb = base + ".folded", cand + ".folded"
        for src, dst in ((base, fa), (cand, fb)):
            with open(dst, "w") as out:
                subprocess.run([sc, src], stdout=out, check=True)
        with open(os.devnull, "w") as out:
            subprocess.run([dfp, fa, fb], stdout=out, check=True)
        dt = time.monotonic() - t0
        rows.append(("FlameGraph perl pair", n, dt, float("nan"), 0))
        os.unlink(fa)
        os.unlink(fb)
    print("%-24s %10s %9s %10s %12s %s" % ("run", "input MB", "seconds",
                                           "MB/s", "peak RSS MB", "exit"))
    for name, n, dt, rss, st in rows:
        print("%-24s %10.1f %9.2f %10.1f %12.1f %d" % (name, n / 1e6, dt,
                                                       n / 1e6 / dt, rss, st))
    if not a.keep:
        for p in made:
            os.unlink(p)


if __name__ == "__main__":
    sys.exit(main())
