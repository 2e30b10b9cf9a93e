#!/usr/bin/env python3
"""Writes a small ETW trace (.etl) from a JSON spec, for the tests.

The layouts are the ones the kernel and the CLR write (64-bit): a WMI
buffer header of 72 bytes, events 8-byte aligned, a system header for
kernel events, a perf-info header for samples, a full trace header for
KernelTraceControl's ImageID events and an EVENT_HEADER for the CLR.

spec: {"processes": [{"pid", "name"}], "threads": [{"pid", "tid"}],
       "images": [{"pid", "base", "size", "path", "timestamp",
                   "pdb": {"guid": "hex of the 16 stored bytes", "age",
                           "name"}}],
       "methods": [{"pid", "start", "size", "namespace", "name"}],
       "samples": [{"tid", "ip", "user": [leaf first], "kernel": [...],
                    "user_key": true, "count": n}],
       "vallocs": [{"tid", "owner": pid, "size", "flags", "free": false,
                    "user": [...], "kernel": [...], "count": n}],
       "cswitches": [{"at": ticks, "old": tid, "new": tid, "state",
                      "reason", "user": [...], "kernel": [...]}],
       "readies": [{"at": ticks, "tid": readied, "by": readier}],
       "disks": [{"start": ticks, "end": ticks, "tid", "irp", "size",
                  "service": ticks, "write": false, "user": [...],
                  "kernel": [...], "drop_start": false}],
       "hardfaults": [{"start": ticks, "at": ticks, "tid", "bytes",
                       "user": [...], "kernel": [...], "short": false}],
       "files": [{"start": ticks, "end": ticks, "tid", "irp", "size",
                  "done": bytes, "write": false, "user": [...],
                  "kernel": [...]}],
       "file_ends": [{"at": ticks, "irp"}] (ends of other operations),
       "compress": false, "no_header": false, "buffers_written": n,
       "repeat": {"buffers": n, "bytes": b}}
"repeat" appends n compressed buffers, each a few dozen bytes of LZ77
that expand to b bytes of the trace's last sample, over and over: what
a hostile trace does to claim millions of samples in a kilobyte.
Kernel images are images of pid 0. A VirtualAlloc (PageFault group,
type 98; 99 with "free") carries base, size, the owning process and the
allocation type (flags, default MEM_COMMIT | MEM_RESERVE), its thread in
its system header, its stacks after it as a sample's. A sample with user_key gives its user
stack by key, defined after every sample (KeyRundown), as the kernel
does for stacks it cached.
"""
import json
import struct
import sys

BUF = 65536
GUID_IMAGEID = bytes.fromhex("d775e6b35425184f830b2762732560de")
GUID_CLR = bytes.fromhex("230d3ce1bccc124e931bd9cc2eee27e4")


def system(group, opcode, version, data, pid=0, tid=0, ts=0):
    size = 32 + len(data)
    return struct.pack("<HBBHBBIIQII", version, 2, 0xC0, size, opcode, group,
                       tid, pid, ts, 0, 0) + data


def perfinfo(group, opcode, data, ts):
    size = 16 + len(data)
    return struct.pack("<HBBHBBQ", 2, 17, 0xC0, size, opcode, group, ts) + data


def full(guid, opcode, data, pid=0, tid=0, ts=0):
    size = 48 + len(data)
    return struct.pack("<HBBBBHIIQ", size, 20, 0xC0, opcode, 0, 2, tid, pid,
                       ts) + guid + struct.pack("<II", 0, 0) + data


def manifest(guid, ident, opcode, data, pid, tid, ts=0):
    size = 80 + len(data)
    head = struct.pack("<HBBHHIIQ", size, 19, 0xC0, 0, 0, tid, pid, ts)
    desc = struct.pack("<HBBBBHQ", ident, 0, 0, 4, opcode, 9, 0)
    return head + guid + desc + struct.pack("<Q", 0) + bytes(16) + data


def utf16z(s):
    return s.encode("utf-16-le") + b"\0\0"


def events(spec):
    out = []
    if not spec.get("no_header"):
        out.append(system(0, 0, 2, bytes(64)))
    for p in spec.get("processes", []):
        # key, pid, parent, session, exit, dirbase, flags, no SID, name
        data = struct.pack("<QIIIIQI", 0, p["pid"], 0, 1, 259, 0, 0)
        data += struct.pack("<I", 0) + p["name"].encode() + b"\0"
        data += utf16z(p["name"]) + utf16z("") + utf16z("")
        out.append(system(3, 3, 4, data))
    for t in spec.get("threads", []):
        out.append(system(5, 3, 3, struct.pack("<II", t["pid"], t["tid"]) +
                          bytes(64)))
    for im in spec.get("images", []):
        pdb = im.get("pdb")
        if pdb:
            data = struct.pack("<QI", im["base"], im["pid"])
            data += bytes.fromhex(pdb["guid"]) + struct.pack("<I", pdb["age"])
            data += pdb["name"].encode() + b"\0"
            out.append(full(GUID_IMAGEID, 36, data, pid=im["pid"]))
        data = struct.pack("<QQIIIIQIIII", im["base"], im["size"], im["pid"],
                           0, im.get("timestamp", 0), 0, 0, 0, 0, 0, 0)
        out.append(system(0x14, 3, 3, data + utf16z(im["path"])))
    for m in spec.get("methods", []):
        data = struct.pack("<QQQIII", 1, 2, m["start"], m["size"], 0, 0)
        data += utf16z(m["namespace"]) + utf16z(m["name"]) + utf16z("()")
        data += struct.pack("<H", 9)
        out.append(manifest(GUID_CLR, 143, 37, data, m["pid"], 0))
    ts, keys = 1000, []
    pid_of = {t["tid"]: t["pid"] for t in spec.get("threads", [])}
    for s in spec.get("samples", []):
        for _ in range(s.get("count", 1)):
            ts += 10
            tid = s["tid"]
            out.append(perfinfo(15, 46, struct.pack("<QIHH", s["ip"], tid, 1,
                                                    0), ts))
            head = struct.pack("<QII", ts, pid_of.get(tid, 0), tid)
            if s.get("kernel"):
                frames = b"".join(struct.pack("<Q", a) for a in s["kernel"])
                out.append(system(0x18, 32, 2, head + frames))
            if s.get("user") and s.get("user_key"):
                key = 0x5000 + len(keys)
                keys.append((key, s["user"]))
                out.append(system(0x18, 38, 2, head + struct.pack("<Q", key),
                                  ts=ts))
            elif s.get("user"):
                frames = b"".join(struct.pack("<Q", a) for a in s["user"])
                out.append(system(0x18, 32, 2, head + frames))
    for v in spec.get("vallocs", []):
        for _ in range(v.get("count", 1)):
            ts += 10
            tid = v["tid"]
            pid = pid_of.get(tid, 0)
            data = struct.pack("<QQII", 0x10000000 + ts * 0x1000, v["size"],
                               v.get("owner", pid), v.get("flags", 0x3000))
            out.append(system(0x02, 99 if v.get("free") else 98, 2, data,
                              pid=pid, tid=tid, ts=ts))
            head = struct.pack("<QII", ts, pid, tid)
            for half in ("kernel", "user"):
                if v.get(half):
                    frames = b"".join(struct.pack("<Q", a) for a in v[half])
                    out.append(system(0x18, 32, 2, head + frames))
    # Thread/CSwitch (V2, 24 bytes) at its own time (100 ns ticks: the
    # header names no clock), the new thread's stack after it
    for c in spec.get("cswitches", []):
        data = struct.pack("<IIbbBbbbbbII", c["new"], c["old"], 8, 8, 0, 0,
                           c.get("reason", 6), 1, c.get("state", 5), 0, 0, 0)
        out.append(system(0x05, 36, 2, data, ts=c["at"]))
        head = struct.pack("<QII", c["at"], pid_of.get(c["new"], 0), c["new"])
        for half in ("kernel", "user"):
            if c.get(half):
                frames = b"".join(struct.pack("<Q", a) for a in c[half])
                out.append(system(0x18, 32, 2, head + frames))
    # Dispatcher/ReadyThread (V2, 8 bytes: the readied thread, the
    # priority adjustment's reason, increment, flags, a reserved byte),
    # the readier in its system header
    for rd in spec.get("readies", []):
        data = struct.pack("<IbbbB", rd["tid"], 1, 0, 0, 0)
        out.append(system(0x05, 50, 2, data, pid=pid_of.get(rd.get("by"), 0),
                          tid=rd.get("by", 0), ts=rd["at"]))
    # DiskIo V3: ReadInit/WriteInit (12/13: the IRP, the issuing thread)
    # in the issuing thread with its stack; Read/Write (10/11: disk,
    # IRP flags, bytes, reserved, offset, file object, IRP, service time,
    # issuing thread) at the end, in no thread
    for d in spec.get("disks", []):
        w = 1 if d.get("write") else 0
        pid = pid_of.get(d["tid"], 0)
        if not d.get("drop_start"):  # as if it began before the trace
            out.append(system(0x01, 12 + w, 3,
                              struct.pack("<QI", d["irp"], d["tid"]),
                              pid=pid, tid=d["tid"], ts=d["start"]))
        head = struct.pack("<QII", d["start"], pid, d["tid"])
        for half in ("kernel", "user"):
            if d.get(half):
                frames = b"".join(struct.pack("<Q", a) for a in d[half])
                out.append(system(0x18, 32, 2, head + frames))
        data = struct.pack("<IIIIqQQQI", 0, 0x60043, d["size"], 0, 4096,
                           0xfffff8a0017ca760, d["irp"], d["service"], d["tid"])
        out.append(system(0x01, 10 + w, 3, data, pid=0xFFFFFFFF,
                          tid=0xFFFFFFFF, ts=d["end"]))
    # PageFault/HardFault V2 (when it began, file offset, address, file
    # object, the thread, the bytes read) when the page is in, in no
    # thread's header; its stack the faulting thread's at that time
    for h in spec.get("hardfaults", []):
        data = struct.pack("<qQQQII", h["start"], 0, 0x7f9c7a891f0,
                           0xfffff8a0017ca760, h["tid"], h["bytes"])
        if h.get("short"):  # a damaged event: its fields cut
            data = data[:16]
        out.append(system(0x02, 32, 2, data, pid=0xFFFFFFFF,
                          tid=0xFFFFFFFF, ts=h["at"]))
        head = struct.pack("<QII", h["at"], pid_of.get(h["tid"], 0), h["tid"])
        for half in ("kernel", "user"):
            if h.get(half):
                frames = b"".join(struct.pack("<Q", a) for a in h[half])
                out.append(system(0x18, 32, 2, head + frames))
    # FileIo V3 Read/Write (67/68: offset, IRP, file object, file key,
    # thread, bytes asked, flags) in the requesting thread with its stack;
    # OperationEnd (76: IRP, bytes done, status) in no thread
    for fl in spec.get("files", []):
        w = 1 if fl.get("write") else 0
        pid = pid_of.get(fl["tid"], 0)
        data = struct.pack("<qQQQIII", 0, fl["irp"], 0xfffffa8302e37080,
                           0xfffff8a0017ca760, fl["tid"], fl["size"], 0)
        out.append(system(0x04, 67 + w, 3, data, pid=pid, tid=fl["tid"],
                          ts=fl["start"]))
        head = struct.pack("<QII", fl["start"], pid, fl["tid"])
        for half in ("kernel", "user"):
            if fl.get(half):
                frames = b"".join(struct.pack("<Q", a) for a in fl[half])
                out.append(system(0x18, 32, 2, head + frames))
        out.append(system(0x04, 76, 2, struct.pack("<QQI", fl["irp"],
                                                   fl.get("done", fl["size"]), 0),
                          pid=0xFFFFFFFF, tid=0xFFFFFFFF, ts=fl["end"]))
    for e in spec.get("file_ends", []):
        out.append(system(0x04, 76, 2, struct.pack("<QQI", e["irp"], 0, 0),
                          pid=0xFFFFFFFF, tid=0xFFFFFFFF, ts=e["at"]))
    for key, frames in keys:
        data = struct.pack("<Q", key) + b"".join(struct.pack("<Q", a)
                                                 for a in frames)
        out.append(system(0x18, 36, 2, data, ts=ts + 1000))
    return out


def literal_lz77(b):
    """Plain LZ77 of literals only: a zero flag word per 32 bytes."""
    out = bytearray()
    for i in range(0, len(b), 32):
        out += bytes(4) + b[i:i + 32]
    return bytes(out)


def repeat_lz77(unit, total):
    """Plain LZ77 of `total` bytes: `unit` (32 bytes) as literals, then one
    match at distance 32 of the rest, its length in the long form: 7 in
    the token, 15 in a half byte, 255 in a byte, 0 in 16 bits, then the
    length less 3 in 32 bits ([MS-XCA] 2.3.4)."""
    assert len(unit) == 32 and total > 64
    flags = struct.pack("<I", 1 << 31)  # 32 literals, then a match
    match = struct.pack("<H", (31 << 3) | 7) + bytes([15, 255])
    match += struct.pack("<HI", 0, total - 32 - 3)
    return struct.pack("<I", 0) + unit + flags + match


def repeat_buffers(sample, count, total):
    """count compressed buffers, each `sample` (an event of 32 bytes)
    repeated to about total bytes."""
    unit = sample + bytes(-len(sample) % 8)
    assert len(unit) == 32
    body = total - total % 32
    z = repeat_lz77(unit, body)
    head = struct.pack("<IIIiQQQIIIHH", 72 + len(z), 72 + body, 0, 0, 0, 0,
                       0, 0, 3, 72 + body, 0x40, 0) + bytes(16)
    return (head + z) * count


def buffers(evs, compress, header, written=None):
    """The trace's header event alone in a first, plain buffer (as the
    relogger writes it); the rest compressed or not. The header says how
    many buffers were written (TRACE_LOGFILE_HEADER's BuffersWritten, 36
    bytes into its data): all of them, or `written`."""
    bufs, cur = [], bytearray()
    if header:
        bufs.append(evs[0] + bytes(-len(evs[0]) % 8))
        evs = evs[1:]
    for e in evs:
        e = e + bytes(-len(e) % 8)
        if 72 + len(cur) + len(e) > BUF:
            bufs.append(bytes(cur))
            cur = bytearray()
        cur += e
    bufs.append(bytes(cur))
    if header:
        n = len(bufs) if written is None else written
        h = bytearray(bufs[0])
        h[32 + 36:32 + 40] = struct.pack("<I", n)
        bufs[0] = bytes(h)
    out = bytearray()
    for i, body in enumerate(bufs):
        saved = 72 + len(body)
        if compress and (i or not header):
            z = literal_lz77(body)
            size, flag, payload = 72 + len(z), 0x40, z
        else:
            # a header buffer as small as the relogger writes it
            size, flag = (saved if header and not i else BUF), 0
            payload = body + b"\xff" * (size - saved)
        head = struct.pack("<IIIiQQQIIIHH", size, saved, 0, 0, 0, 0, 0, 0, 3,
                           saved, flag, 0) + bytes(16)
        out += head + payload
    return bytes(out)


def main():
    spec = json.load(open(sys.argv[1]))
    evs = events(spec)
    data = buffers(evs, spec.get("compress", False),
                   not spec.get("no_header"), spec.get("buffers_written"))
    rep = spec.get("repeat")
    if rep:
        s0 = spec["samples"][-1]
        ev = perfinfo(15, 46, struct.pack("<QIHH", s0["ip"], s0["tid"], 1, 0),
                      5000)
        data += repeat_buffers(ev, rep["buffers"], rep["bytes"])
    open(sys.argv[2], "wb").write(data)


if __name__ == "__main__":
    main()
