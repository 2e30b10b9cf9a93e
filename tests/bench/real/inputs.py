#!/usr/bin/env python3
"""Inputs of the real-program benchmark (tests/bench/real/README.md).

Every input is made here from a fixed seed, so two machines make the same
bytes and a program does the same work on each:
  text.txt   pseudo-English text: words of a made-up vocabulary drawn
             Zipf-like, sentences, numbers, line breaks (compressors, awk)
  doc.xml    nested records with attributes, text and entities (expat)
  doc.yaml   a list of mappings, sequences, block and flow styles (libyaml)
  audio.wav  16-bit stereo 44.1 kHz: chords, a slow sweep, noise (flac, lame)
  bench.sql  tables filled by recursive CTEs, an index, joins, group-by
  bench.lua  tables, strings, closures, sorting (the Lua interpreter)
  count.awk  word frequencies and field sums (mawk)

usage: inputs.py OUTDIR [NAME ...]     (all inputs without names)
"""
import math
import os
import random
import struct
import sys
import wave

HERE = os.path.dirname(os.path.abspath(__file__))


def vocabulary(rng, n=6000):
    cons, vow = "bcdfghjklmnprstvwz", "aeiouy"
    words = set()
    while len(words) < n:
        k = rng.choice((1, 1, 2, 2, 2, 3, 3, 4))
        w = "".join(rng.choice(cons) + rng.choice(vow) for _ in range(k))
        if rng.random() < 0.4:
            w += rng.choice(cons)
        words.add(w)
    return sorted(words)


def zipf_picker(rng, words):
    weights = [1.0 / (i + 1) ** 1.07 for i in range(len(words))]
    cum, s = [], 0.0
    for w in weights:
        s += w
        cum.append(s)

    def pick(k):
        return rng.choices(words, cum_weights=cum, k=k)
    return pick


def text(path, size):
    rng = random.Random(7)
    pick = zipf_picker(rng, vocabulary(rng))
    out, n = [], 0
    while n < size:
        words = pick(rng.randint(6, 22))
        words[0] = words[0].capitalize()
        if rng.random() < 0.15:
            words.insert(rng.randrange(len(words)), str(rng.randint(1, 99999)))
        s = " ".join(words) + rng.choice(".....!?;") + \
            ("\n" if rng.random() < 0.3 else " ")
        out.append(s)
        n += len(s)
    with open(path, "w") as f:
        f.write("".join(out)[:size])


def xml(path, records):
    rng = random.Random(11)
    pick = zipf_picker(rng, vocabulary(rng, 3000))
    with open(path, "w") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n<catalog>\n')
        for i in range(records):
            f.write('  <item id="%d" kind="%s" price="%d.%02d">\n' % (
                i, pick(1)[0], rng.randint(1, 999), rng.randint(0, 99)))
            f.write("    <name>%s</name>\n" % " ".join(pick(3)))
            f.write("    <tags>%s</tags>\n" % "".join(
                "<tag>%s</tag>" % t for t in pick(rng.randint(1, 5))))
            f.write("    <note>%s &amp; %s &lt;%d&gt;</note>\n" % (
                " ".join(pick(rng.randint(4, 30))), pick(1)[0], i))
            f.write("  </item>\n")
        f.write("</catalog>\n")


def yaml(path, records):
    rng = random.Random(13)
    pick = zipf_picker(rng, vocabulary(rng, 3000))
    with open(path, "w") as f:
        f.write("%YAML 1.1\n---\n")
        for i in range(records):
            f.write("- id: %d\n  name: %s\n" % (i, " ".join(pick(2))))
            f.write("  tags: [%s]\n" % ", ".join(pick(rng.randint(1, 6))))
            f.write("  price: %d.%02d\n  active: %s\n" % (
                rng.randint(1, 999), rng.randint(0, 99),
                rng.choice(("true", "false"))))
            f.write("  note: |\n")
            for _ in range(rng.randint(1, 3)):
                f.write("    %s\n" % " ".join(pick(rng.randint(3, 12))))
            f.write("  parts:\n")
            for _ in range(rng.randint(1, 3)):
                f.write("    - {sku: %s, qty: %d}\n" % (
                    pick(1)[0], rng.randint(1, 50)))


def audio(path, seconds):
    rng = random.Random(17)
    rate, n = 44100, int(44100 * seconds)
    frames = bytearray()
    notes = [220.0 * 2 ** (k / 12) for k in (0, 3, 7, 10, 12, 15, 19)]
    chord = rng.sample(notes, 3)
    for i in range(n):
        if i % (rate // 2) == 0:
            chord = rng.sample(notes, 3)
        t = i / rate
        s = sum(math.sin(2 * math.pi * f * t) for f in chord) / 3
        s += 0.3 * math.sin(2 * math.pi * (200 + 40 * t) * t)
        s += rng.uniform(-0.08, 0.08)
        left = int(max(-1, min(1, 0.5 * s)) * 32767)
        right = int(max(-1, min(1, 0.45 * s + rng.uniform(-0.02, 0.02)))
                    * 32767)
        frames += struct.pack("<hh", left, right)
    with wave.open(path, "wb") as w:
        w.setnchannels(2)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(bytes(frames))


def prefix(name, path, n):
    src = os.path.join(os.path.dirname(path), name)
    with open(src, "rb") as f, open(path, "wb") as g:
        g.write(f.read(n))


def copy(name, path):
    with open(os.path.join(HERE, name)) as f, open(path, "w") as g:
        g.write(f.read())


MAKERS = {
    "text.txt": lambda p: text(p, 24 << 20),
    "doc.xml": lambda p: xml(p, 400000),
    "doc.yaml": lambda p: yaml(p, 110000),
    "audio.wav": lambda p: audio(p, 60),
    "bench.sql": lambda p: copy("bench.sql", p),
    "bench.lua": lambda p: copy("bench.lua", p),
    "count.awk": lambda p: copy("count.awk", p),
    # the compressors' and awk's share of the text, sized for about a
    # second of CPU each
    "bzip2.txt": lambda p: prefix("text.txt", p, 10000000),
    "xz.txt": lambda p: prefix("text.txt", p, 1500000),
    "gzip.txt": lambda p: prefix("text.txt", p, 3000000),
    "zstd.txt": lambda p: prefix("text.txt", p, 12000000),
    "mawk.txt": lambda p: prefix("text.txt", p, 12000000),
    # the truth inputs (calibrate.py): the same work, about a quarter
    "bzip2-small.txt": lambda p: prefix("text.txt", p, 2500000),
    "xz-small.txt": lambda p: prefix("text.txt", p, 400000),
    "gzip-small.txt": lambda p: prefix("text.txt", p, 750000),
    "zstd-small.txt": lambda p: prefix("text.txt", p, 3000000),
    "mawk-small.txt": lambda p: prefix("text.txt", p, 3000000),
    "doc-small.xml": lambda p: xml(p, 100000),
    "doc-small.yaml": lambda p: yaml(p, 27000),
    "audio-small.wav": lambda p: audio(p, 15),
}
ORDER = ["text.txt"]  # made first: the prefixes read it


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name in sys.argv[2:] or ORDER + sorted(set(MAKERS) - set(ORDER)):
        path = os.path.join(out, name)
        if not os.path.exists(path):
            MAKERS[name](path + ".tmp")
            os.replace(path + ".tmp", path)


if __name__ == "__main__":
    main()
