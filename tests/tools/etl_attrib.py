#!/usr/bin/env python3
"""Independent CPU-sample attribution from a Windows ETW trace.

A second reading of an .etl (or PerfView's .etl.zip) that shares nothing
with perfdiff's C reader, for the tests to compare against: it walks the
trace's buffers (inflating the compressed ones with its own plain LZ77 of
[MS-XCA]), decodes every event header form far enough to step over it, and
keeps the kernel's PerfInfo SampledProfile, Thread, Process, Image and
StackWalk events (stack keys resolved), and the CLR's method events (the
runtime's loads and unloads, the rundown's at the trace's ends). Samples
are given to processes through their thread, as PerfView's TraceEvent
does, and their instruction pointer to the image loaded there (kernel
addresses to the images reported for process 0), or, in no image, to the
JIT-compiled method whose code holds it, named Namespace.Name as the
method events spell them; the innermost frame of their stack likewise.

usage: etl_attrib.py TRACE [--process PID]... [--find PID:TID:IP]...
prints JSON {"samples": N, "processes": {"name (pid)": count},
             "modules": {"PID": {"image file name": samples}},
             "leaves": {"PID": {"name!+0xoffset": samples}},
             "unattributed": {"PID": samples in no image},
             "methods": {"PID": {"Namespace.Name": samples}},
             "stack_methods": {"PID": {"Namespace.Name": samples}},
             "no_stack": {"PID": samples}, "leaf_not_ip": {"PID": samples},
             "found": {"PID:TID:IP": samples}}
(modules and methods for each --process PID, of the sample's own
instruction pointer, stack_methods of the innermost frame of its stack;
idle-loop samples, those of thread 0 outside a DPC or an ISR, are left out
as PerfView does.)
"""
import json
import struct
import sys
import zipfile

BUFFER_HEADER = 0x48
FLAG_COMPRESSED = 0x0040

# kernel event groups (the high byte of a system header's hook id) and the
# classic class GUIDs the same events carry in the other header forms
GROUP_PROCESS, GROUP_THREAD, GROUP_PERFINFO, GROUP_IMAGE = 0x03, 0x05, 0x0F, 0x14
GROUP_STACK = 0x18
GUID_GROUPS = {
    "3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c": GROUP_PROCESS,
    "3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c": GROUP_THREAD,
    "ce1dbfb4-137e-4da6-87b0-3f59aa102cbc": GROUP_PERFINFO,
    "2cb15d1d-5fc1-11d2-abe1-00a0c911f518": GROUP_IMAGE,
    "def2fe46-7bd6-4b80-bd94-f57fe20d0ce3": GROUP_STACK,
}
# StackWalk: a stack of frames for an event (thread and time), or a
# reference to a kernel or a user stack key, and a key's definition when
# it leaves the cache or at the rundown
OP_STACK, OP_KEY_KERNEL, OP_KEY_USER, OP_KEY_DELETE, OP_KEY_RUNDOWN = 32, 37, 38, 35, 36
# the CLR's providers, whose method events name JIT-compiled code:
# Microsoft-Windows-DotNETRuntime and Microsoft-Windows-DotNETRuntimeRundown
GROUP_CLR, GROUP_CLR_RUNDOWN = "clr", "clr-rundown"
CLR_PROVIDERS = {
    "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4": GROUP_CLR,
    "a669021c-c450-4609-a035-5af59af4df18": GROUP_CLR_RUNDOWN,
}
# event ids: the runtime's MethodLoadVerbose / MethodUnloadVerbose (and the
# old DCStartVerboseV2 / DCStopVerboseV2 it logged before a rundown
# provider existed), the rundown's MethodDCStartVerbose / MethodDCEndVerbose
CLR_LOAD, CLR_UNLOAD, CLR_DCSTART_V2, CLR_DCEND_V2 = 143, 144, 139, 140
RUNDOWN_DCSTART, RUNDOWN_DCEND = 143, 144
OP_SAMPLE = 46
OP_START, OP_END, OP_DCSTART, OP_DCEND, OP_LOAD = 1, 2, 3, 4, 10
NO_ID = 0xFFFFFFFF
# where 64-bit Windows' kernel space begins, as TraceEvent draws the line
# (32-bit: 0x80000000): such addresses are looked up in process 0's images
KERNEL_FROM = 0xFFFF000000000000


class BadTrace(Exception):
    pass


def lz77_plain(src, limit):
    """[MS-XCA] plain LZ77: 32 flag bits (most significant first) say
    literal byte (0) or match (1); a match is a 16-bit word, offset in its
    high 13 bits, length in its low 3, longer lengths in a shared nibble,
    then a byte, then 16 or 32 bits."""
    out = bytearray()
    pos, n = 0, len(src)
    flags, nflags, half = 0, 0, None
    while len(out) < limit:
        if nflags == 0:
            if pos + 4 > n:
                break
            flags = struct.unpack_from("<I", src, pos)[0]
            pos += 4
            nflags = 32
        nflags -= 1
        if not (flags >> nflags) & 1:
            if pos >= n:
                break
            out.append(src[pos])
            pos += 1
            continue
        if pos + 2 > n:
            break
        word = src[pos] | src[pos + 1] << 8
        pos += 2
        dist = (word >> 3) + 1
        length = word & 7
        if length == 7:
            if half is None:
                length = src[pos] & 15
                half = pos
                pos += 1
            else:
                length = src[half] >> 4
                half = None
            if length == 15:
                length = src[pos]
                pos += 1
                if length == 255:
                    length = src[pos] | src[pos + 1] << 8
                    pos += 2
                    if length == 0:
                        length = struct.unpack_from("<I", src, pos)[0]
                        pos += 4
                    if length < 22:
                        raise BadTrace("lz77: length below its escape")
                    length -= 22
                length += 15
            length += 7
        length += 3
        start = len(out) - dist
        if start < 0:
            raise BadTrace("lz77: match before the start")
        for i in range(length):
            out.append(out[start + i])
    return bytes(out)


def buffers(data):
    """(offset in file, bytes of the buffer as logged, end of its events)"""
    at = 0
    while at + BUFFER_HEADER <= len(data):
        size, _saved, _cur = struct.unpack_from("<III", data, at)
        filled = struct.unpack_from("<I", data, at + 0x30)[0]
        flag = struct.unpack_from("<H", data, at + 0x34)[0]
        if size < BUFFER_HEADER or at + size > len(data):
            raise BadTrace("byte %d: buffer of %d bytes" % (at, size))
        raw = data[at:at + size]
        if flag & FLAG_COMPRESSED:
            body = lz77_plain(raw[BUFFER_HEADER:], filled - BUFFER_HEADER)
            if len(body) < filled - BUFFER_HEADER:
                raise BadTrace("byte %d: compressed buffer short" % at)
            raw = raw[:BUFFER_HEADER] + body
        yield at, raw, min(filled, len(raw))
        at += size


def guid_text(b, at):
    d1, d2, d3 = struct.unpack_from("<IHH", b, at)
    tail = b[at + 8:at + 16].hex()
    return "%08x-%04x-%04x-%s-%s" % (d1, d2, d3, tail[:4], tail[4:])


def events(raw, end, where):
    """Every event of one buffer: (group, opcode, version, tid, pid, time,
    pointer size, payload); group None for events not of the kernel's
    classic classes (walked past, not decoded)."""
    at = BUFFER_HEADER
    while at + 8 <= end:
        marker = struct.unpack_from("<I", raw, at)[0]
        if marker == NO_ID:
            return
        flags, htype = marker >> 24, (marker >> 16) & 0xFF
        ev = None
        if flags & 0xC0 == 0xC0 and htype in (1, 2, 3, 4, 16, 17):
            size, hook = struct.unpack_from("<HH", raw, at + 4)
            ptr = 8 if htype in (2, 4, 17) else 4
            if htype in (16, 17):  # PERFINFO_TRACE_HEADER: no ids
                hdr, tid, pid = 16, NO_ID, NO_ID
                time = struct.unpack_from("<q", raw, at + 8)[0]
            else:  # SYSTEM_TRACE_HEADER, full or compact
                hdr = 32 if htype in (1, 2) else 24
                tid, pid, time = struct.unpack_from("<IIq", raw, at + 8)
            ev = (hook >> 8, hook & 0xFF, marker & 0xFFFF, tid, pid, time, ptr)
        elif flags & 0xC0 == 0xC0 and htype in (18, 19):  # EVENT_HEADER
            size, _t, eflags = struct.unpack_from("<HHH", raw, at)
            tid, pid, time = struct.unpack_from("<IIq", raw, at + 8)
            guid = guid_text(raw, at + 24)
            group = GUID_GROUPS.get(guid)
            op = raw[at + 45]
            if guid in CLR_PROVIDERS:  # manifest events: by event id
                group = CLR_PROVIDERS[guid]
                op = struct.unpack_from("<H", raw, at + 40)[0]
            ptr = 8 if eflags & 0x40 else 4 if eflags & 0x20 else 8
            hdr = 80
            if eflags & 0x01:  # extended data items inside the size
                hdr = size  # not decoded: only kernel classes are wanted
                group = None
            ev = (group, op, raw[at + 42], tid, pid, time, ptr)
        elif flags & 0xC0 == 0xC0 and htype in (10, 11, 20, 21):
            size = struct.unpack_from("<H", raw, at)[0]  # EVENT_TRACE_HEADER
            tid, pid, time = struct.unpack_from("<IIq", raw, at + 8)
            hdr = 48 if htype in (10, 20) else 72
            group = GUID_GROUPS.get(guid_text(raw, at + 24))
            if htype in (11, 21):
                group = None
            ptr = 8 if htype in (20, 21) else 4
            version = struct.unpack_from("<H", raw, at + 6)[0]
            ev = (group, raw[at + 4], version, tid, pid, time, ptr)
        elif flags & 0xF0 == 0x90 or (flags & 0xC0 == 0xC0 and htype == 15):
            size = marker & 0xFFFF  # TRACE_MESSAGE (WPP): walk past
            hdr = size
        elif flags & 0xC0 == 0xC0 and htype == 13:
            size = struct.unpack_from("<H", raw, at + 4)[0]
            hdr = size
        else:
            raise BadTrace("%s+%d: marker %#010x" % (where, at, marker))
        if size < 8 or at + size > end:
            raise BadTrace("%s+%d: event of %d bytes" % (where, at, size))
        if ev is not None and ev[0] is not None and hdr <= size:
            yield ev + (raw[at + hdr:at + size],)
        at += (size + 7) & ~7


def utf16z(b, at):
    end = at
    while end + 1 < len(b) and (b[end] or b[end + 1]):
        end += 2
    return b[at:end].decode("utf-16-le", "replace")


def ansiz(b, at):
    end = b.find(b"\0", at)
    return b[at:end if end >= 0 else len(b)].decode("latin-1")


def clr_method(p):
    """A CLR method event's payload (MethodLoadVerbose's layout, the same
    in every version for the fields wanted: 64-bit MethodID, ModuleID and
    MethodStartAddress whatever the pointer size, 32-bit MethodSize,
    MethodToken, MethodFlags, then three UTF-16 strings: MethodNamespace,
    MethodName, MethodSignature; versions 1 and 2 only append
    ClrInstanceID and ReJITID): (start, size, flags, namespace, name)."""
    if len(p) < 36:
        return None
    start, size, _token, flags = struct.unpack_from("<QIII", p, 16)
    ns = utf16z(p, 36)
    # past the namespace's terminator, counted in UTF-16 units
    name = utf16z(p, 36 + len(ns.encode("utf-16-le")) + 2)
    return start, size, flags, ns, name


def process_name(p, version, ptr):
    """ImageFileName of a Process event, after its (variable) user SID."""
    if version < 1:
        return None
    grow = ptr - 4
    at = 28 + 2 * grow if version >= 4 else 24 + 2 * grow if version >= 3 else 20 + grow
    if at + 4 > len(p):
        return None
    if struct.unpack_from("<I", p, at)[0] == 0:
        at += 4
    else:  # TOKEN_USER (two pointers) then the SID
        token = 8 + 2 * grow
        at += token + 8 + 4 * p[at + token + 1]
    return ansiz(p, at)


def read_trace(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] == b"PK\3\4":
        z = zipfile.ZipFile(path)
        name = next(n for n in z.namelist() if n.lower().endswith(".etl"))
        data = z.read(name)
    out = []
    for at, raw, end in buffers(data):
        for ev in events(raw, end, "buffer at byte %d" % at):
            out.append(ev)
    # one stream in time order, as ETW hands events to a consumer
    out.sort(key=lambda e: e[5])
    return out


class Images:
    """Images of one process: (base, end, name, from, to) by base."""

    def __init__(self):
        self.rows = []

    def add(self, base, size, name, start, stop):
        self.rows.append((base, base + size, name, start, stop))

    def find(self, ip, time):
        best = None
        for base, end, name, start, stop in self.rows:
            if base <= ip < end and start <= time <= stop:
                if best is None or base > best[0]:
                    best = (base, name)
        return best


class Methods:
    """JIT-compiled methods of one process: [start, end, name, from, to].
    A load opens a range at its time, an unload closes it; a rundown's
    start holds from the trace's beginning, its end to the trace's end."""

    def __init__(self):
        self.rows = []
        self.open = {}  # start address -> its row while loaded

    def load(self, start, size, name, time):
        row = [start, start + size, name, time, float("inf")]
        self.rows.append(row)
        self.open[start] = row

    def unload(self, start, size, name, time, rundown):
        row = self.open.pop(start, None)
        if row is None:  # no load seen: it was there from the beginning
            row = [start, start + size, name, float("-inf"), float("inf")]
            self.rows.append(row)
        if not rundown:
            row[4] = time

    def find(self, ip, time):
        """The range holding ip at time, the latest loaded if several."""
        best = None
        for row in self.rows:
            if row[0] <= ip < row[1] and row[3] <= time <= row[4]:
                if best is None or row[3] > best[3]:
                    best = row
        return best


class Stacks:
    """The stack fragments of each event, by (thread, event's time): a
    StackWalk event's frames at once; a key reference's when the key's
    next definition comes (a key is reused once deleted, so a reference
    takes the first definition after it, from the kernel's or the user's
    keys as the definition's outermost frame lies)."""

    def __init__(self):
        self.frags = {}
        self.pending = {OP_KEY_KERNEL: {}, OP_KEY_USER: {}}

    def event(self, op, ptr, p):
        fmt = "<Q" if ptr == 8 else "<I"
        if op in (OP_STACK, OP_KEY_KERNEL, OP_KEY_USER):
            if len(p) < 16 + (ptr if op != OP_STACK else 0):
                return
            when, _pid, tid = struct.unpack_from("<qII", p, 0)
            if op == OP_STACK:
                n = (len(p) - 16) // ptr
                frames = [struct.unpack_from(fmt, p, 16 + i * ptr)[0] for i in range(n)]
                if frames:
                    self.frags.setdefault((tid, when), []).append(frames)
            else:
                key = struct.unpack_from(fmt, p, 16)[0]
                self.pending[op].setdefault(key, []).append((tid, when))
            return
        n = len(p) // ptr - 1  # a definition: the key, then its frames
        if n < 1:
            return
        key = struct.unpack_from(fmt, p, 0)[0]
        frames = [struct.unpack_from(fmt, p, (i + 1) * ptr)[0] for i in range(n)]
        side = OP_KEY_KERNEL if frames[-1] >= kernel_from(ptr) else OP_KEY_USER
        for ev in self.pending[side].pop(key, []):
            self.frags.setdefault(ev, []).append(frames)

    def leaf(self, tid, time, ptr):
        """The innermost frame of an event's stack: its kernel fragment's
        first frame if it has one, else its user fragment's; None when no
        stack came for it."""
        frags = self.frags.get((tid, time), [])
        kernel = [f for f in frags if f[0] >= kernel_from(ptr)]
        return (kernel or frags or [[None]])[0][0]


def kernel_from(ptr):
    return KERNEL_FROM if ptr == 8 else 0x80000000


def thread_pid(starts, ends, tid, time):
    """The process of a thread at a time: its last start (or start
    rundown) before then; else its first one after (a rundown logged once
    sampling had begun), as TraceEvent makes a start hold from the trace's
    beginning; else the first end after then (a circular log)."""
    s = starts.get(tid, [])
    before = [q for t, q in s if t <= time]
    if before:
        return before[-1]
    if s:
        return s[0][1]
    later = [q for t, q in ends.get(tid, []) if t >= time]
    return later[0] if later else None


def attribute(evs):
    names = {}
    starts, ends = {}, {}  # tid -> [(time, pid)] from thread events
    images = {}
    open_img = {}
    methods = {}  # pid -> Methods
    stacks = Stacks()
    samples = []
    for group, op, ver, tid, pid, time, ptr, p in evs:
        if group == GROUP_THREAD and op in (OP_START, OP_DCSTART, OP_END, OP_DCEND):
            if len(p) < 8:
                continue
            tpid, ttid = struct.unpack_from("<II", p, 0)
            if ver < 1:
                ttid, tpid = tpid, ttid
            if op in (OP_START, OP_DCSTART):
                starts.setdefault(ttid, []).append((time, tpid))
            else:
                ends.setdefault(ttid, []).append((time, tpid))
        elif group == GROUP_PROCESS and op in (OP_START, OP_DCSTART, OP_END, OP_DCEND):
            ppid = struct.unpack_from("<I", p, ptr)[0] if ver >= 1 else None
            name = process_name(p, ver, ptr)
            if ppid is not None and name is not None:
                if op in (OP_START, OP_DCSTART) or ppid not in names:
                    names[ppid] = name
        elif (group == GROUP_IMAGE and op in (OP_LOAD, OP_END, OP_DCSTART, OP_DCEND)) or (
                group == GROUP_PROCESS and op == OP_LOAD):  # older loads: in Process
            fmt = "<QQ" if ptr == 8 else "<II"
            base, size = struct.unpack_from(fmt, p, 0)
            ipid = struct.unpack_from("<I", p, 2 * ptr)[0] if ver >= 1 else 0
            at = 44 + 3 * (ptr - 4) if ver >= 2 else 12 + 2 * (ptr - 4)
            name = utf16z(p, at).rsplit("\\", 1)[-1]
            key = (ipid, base)
            if op == OP_DCSTART:
                open_img[key] = (size, name, float("-inf"))
            elif op == OP_LOAD:
                open_img[key] = (size, name, time)
            else:  # an unload ends it there; an end rundown leaves it open
                size0, name0, start = open_img.pop(key, (size, name, float("-inf")))
                stop = time if op == OP_END else float("inf")
                images.setdefault(ipid, Images()).add(base, size0, name0, start, stop)
        elif (group == GROUP_CLR and op in (CLR_LOAD, CLR_UNLOAD, CLR_DCSTART_V2, CLR_DCEND_V2)) or (
                group == GROUP_CLR_RUNDOWN and op in (RUNDOWN_DCSTART, RUNDOWN_DCEND)):
            m = clr_method(p)
            if m is None:
                continue
            start, size, _flags, ns, name = m
            table = methods.setdefault(pid, Methods())
            full = "%s.%s" % (ns, name)
            if group == GROUP_CLR and op == CLR_LOAD:
                table.load(start, size, full, time)
            elif group == GROUP_CLR and op == CLR_UNLOAD:
                table.unload(start, size, full, time, False)
            elif op == (CLR_DCSTART_V2 if group == GROUP_CLR else RUNDOWN_DCSTART):
                table.load(start, size, full, float("-inf"))
            else:  # a rundown's end: still loaded when the trace stopped
                table.unload(start, size, full, time, True)
        elif group == GROUP_STACK and op in (OP_STACK, OP_KEY_KERNEL, OP_KEY_USER,
                                             OP_KEY_DELETE, OP_KEY_RUNDOWN):
            stacks.event(op, ptr, p)
        elif group == GROUP_PERFINFO and op == OP_SAMPLE:
            ip = struct.unpack_from("<Q" if ptr == 8 else "<I", p, 0)[0]
            stid = struct.unpack_from("<I", p, ptr)[0]
            bits = p[ptr + 6] if len(p) > ptr + 6 else 0
            if stid == 0 and not bits & 3:
                continue  # the idle loop
            kernel = ip >= kernel_from(ptr)
            samples.append((pid if pid != NO_ID else None, stid, ip, time, kernel, ptr))
    samples = [(spid if spid is not None else thread_pid(starts, ends, stid, t), stid, ip, t,
                k, stacks.leaf(stid, t, ptr), ptr) for spid, stid, ip, t, k, ptr in samples]
    for (ipid, base), (size, name, start) in open_img.items():
        images.setdefault(ipid, Images()).add(base, size, name, start, float("inf"))
    return samples, names, images, methods


def by_process(out, pid, samples, images, methods):
    """One process's samples by the image, the leaf address and the JIT
    method their own instruction pointer is in, and by the method their
    stack's leaf is in."""
    mods, leaves, none, jit, stack_jit = {}, {}, 0, {}, {}
    no_stack, leaf_not_ip = 0, 0
    for spid, _tid, ip, t, kernel, leaf, ptr in samples:
        hit = images.get(0 if kernel else spid, Images()).find(ip, t)
        if hit is None:
            none += 1
            m = None if kernel else methods.get(spid, Methods()).find(ip, t)
            if m is not None:
                jit[m[2]] = jit.get(m[2], 0) + 1
        else:
            mods[hit[1]] = mods.get(hit[1], 0) + 1
            name = "%s!+%#x" % (hit[1], ip - hit[0])
            leaves[name] = leaves.get(name, 0) + 1
        if leaf is None:
            no_stack += 1
            continue
        leaf_not_ip += leaf != ip
        if leaf >= kernel_from(ptr) or images.get(spid, Images()).find(leaf, t):
            continue
        m = methods.get(spid, Methods()).find(leaf, t)
        if m is not None:
            stack_jit[m[2]] = stack_jit.get(m[2], 0) + 1
    for key, value in (("modules", mods), ("leaves", leaves), ("unattributed", none),
                       ("methods", jit), ("stack_methods", stack_jit),
                       ("no_stack", no_stack), ("leaf_not_ip", leaf_not_ip)):
        out.setdefault(key, {})[pid] = value


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    path, wants, finds = args[0], [], []
    i = 1
    while i + 1 < len(args):
        if args[i] == "--process":
            wants.append(int(args[i + 1]))
        elif args[i] == "--find":
            finds.append(args[i + 1])
        else:
            sys.exit("unknown argument " + args[i])
        i += 2
    if i != len(args):
        sys.exit("an option without its value: " + args[i])
    try:
        evs = read_trace(path)
    except (BadTrace, struct.error, IndexError, StopIteration, zipfile.BadZipFile) as e:
        sys.exit("%s: %s" % (path, e or "no .etl in the zip"))
    samples, names, images, methods = attribute(evs)
    procs = {}
    for spid, _tid, _ip, _t, _k, _leaf, _ptr in samples:
        key = "%s (%s)" % (names.get(spid, "?"), spid if spid is not None else "?")
        procs[key] = procs.get(key, 0) + 1
    out = {"samples": len(samples), "processes": procs}
    for want in wants:
        by_process(out, str(want), [s for s in samples if s[0] == want], images, methods)
    if finds:
        got = {}
        for spid, stid, ip, _t, _k, _leaf, _ptr in samples:
            k = "%s:%s:%#x" % (spid, stid, ip)
            got[k] = got.get(k, 0) + 1
        out["found"] = {f: got.get("%d:%d:%#x" % tuple(int(x, 0) for x in f.split(":")), 0)
                        for f in finds}
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
