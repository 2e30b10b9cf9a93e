#!/usr/bin/env python3
"""The programs of the real-program benchmark (tests/bench/real/README.md).

Each program: its half (tune: the model is chosen and tuned on it;
held: every figure is reported on it too, nothing is chosen on it), the
command a run executes (INPUTS and OUT are replaced by the folders), and
its plant sites: (file, function[, symbol]) where plant.h's PD_PLANT(i)
goes at the function's entry (symbol: the function's name in profiles
when the compiler made it an instance of an inline template). Each planted build sets one site's count
(PD_Ki = n): p10, p35 at site 0 (+10 %, +35 % of its self instructions
under callgrind), p20 at site 1 (+20 %), and pad at site 1, the base of
m25 (the unchanged build against pad is -25 % at site 1).

usage: programs.py list | variants P WORK | plant P TREE | run P WORK BUILD
       | info P
"""
import json
import os
import re
import sys

PROGRAMS = {
    "bzip2": dict(half="tune", kind="compressor",
                  run="bzip2 -9 -c INPUTS/bzip2.txt",
                  sites=[("blocksort.c", "mainSort"), ("compress.c", "generateMTFValues")]),
    "lua": dict(half="tune", kind="interpreter",
                run="lua INPUTS/bench.lua", sites=[("src/lstring.c", "internshrstr"), ("src/lgc.c", "propagatemark")]),
    "xz": dict(half="tune", kind="compressor, 2 threads",
               run="xz -T2 --block-size=768KiB -6 -c INPUTS/xz.txt",
               sites=[("src/liblzma/lz/lz_encoder_mf.c", "bt_find_func"),
                      ("src/liblzma/lzma/lzma_encoder_optimum_normal.c",
                       "lzma_lzma_optimum_normal")]),
    "expat": dict(half="tune", kind="XML parser",
                  run="xmlwf INPUTS/doc.xml", sites=[("expat/lib/xmltok_impl.c", "PREFIX(contentTok)"),
                         ("expat/lib/xmlparse.c", "doContent")]),
    "flac": dict(half="tune", kind="audio codec",
                 run="flac -8 -s -f -c INPUTS/audio.wav", sites=[("src/libFLAC/lpc.c",
                         "FLAC__lpc_compute_autocorrelation"),
                        ("src/libFLAC/stream_encoder.c",
                         "precompute_partition_info_sums_")]),
    "gzip": dict(half="held", kind="compressor",
                 run="gzip -9 -c INPUTS/gzip.txt", sites=[("deflate.c", "longest_match"), ("deflate.c", "deflate")]),
    "zstd": dict(half="held", kind="compressor, 2 threads",
                 run="zstd -T2 -9 -B1MiB -c -q INPUTS/zstd.txt", sites=[("lib/compress/zstd_lazy.c", "ZSTD_RowFindBestMatch",
                         "ZSTD_RowFindBestMatch_noDict_5_4"),
                        ("lib/compress/zstd_lazy.c", "ZSTD_row_update")]),
    "mawk": dict(half="held", kind="interpreter",
                 run="mawk -f INPUTS/count.awk INPUTS/mawk.txt", sites=[("execute.c", "execute"), ("array.c", "find_by_sval")]),
    "sqlite": dict(half="held", kind="database",
                   run="sqlite3 :memory: < INPUTS/bench.sql", sites=[("src/btree.c", "sqlite3BtreeTableMoveto"),
                          ("src/vdbesort.c", "vdbeSorterCompareInt")]),
    "lame": dict(half="held", kind="audio codec",
                 run="lame --silent -V2 INPUTS/audio.wav -", sites=[("libmp3lame/vbrquantize.c", "calc_sfb_noise_x34"),
                        ("libmp3lame/takehiro.c", "choose_table_nonMMX")]),
    "yaml": dict(half="held", kind="YAML parser",
                 run="run-parser INPUTS/doc.yaml", sites=[("src/scanner.c", "yaml_parser_fetch_more_tokens"),
                        ("src/parser.c", "yaml_parser_parse_node")]),
}

# The five program shapes of tests/bench/shapes (the model was tuned on
# them before): built from that folder, their planted change exact by
# construction (PLANT_FN, PLANT_PCT: a multiple of the steps).
SHAPES = {"phased": ("parse_record", "parse_record"),
          "interleaved": ("transform", "transform"),
          "threads": ("hot_kernel", "hot_kernel"),
          "recursion": ("cpu_kernel", "chase"),
          "shortlived": ("process_item", "gc_collect")}
for _shape, (_f0, _f1) in SHAPES.items():
    PROGRAMS["shape-" + _shape] = dict(
        half="tune", kind="shape: " + _shape, shape=_shape,
        run="%s" % _shape, sites=[("", _f0), ("", _f1)])

# the planted builds: name -> (site, target change of its self work in %)
VARIANTS = {"p10": (0, 10), "p35": (0, 35), "p20": (1, 20), "pad": (1, 33.3)}
# each planted build against the unchanged one: (base, cand, site, %)
PAIRS = {"p10": ("a", "p10", 0, 10), "p35": ("a", "p35", 0, 35),
         "p20": ("a", "p20", 1, 20), "m25": ("pad", "a", 1, -25)}


def masked(src):
    """src with comments and string and character literals blanked
    (newlines kept), so that a search sees only code, at the same
    offsets."""
    out, i, n = list(src), 0, len(src)
    while i < n:
        two = src[i:i + 2]
        if two in ("/*", "//"):
            end = src.find("*/", i + 2) + 2 if two == "/*" else \
                src.find("\n", i)
            end = n if end < 2 or end == -1 else end
        elif src[i] in "\"'":
            end, q = i + 1, src[i]
            while end < n and src[end] != q:
                end += 2 if src[end] == "\\" else 1
            end += 1
        else:
            i += 1
            continue
        for k in range(i, min(end, n)):
            if out[k] != "\n":
                out[k] = " "
        i = end
    return "".join(out)


def plant(name, tree):
    """Inserts PD_PLANT(i) after the opening brace of each site's
    function definition: the name at the start of a line (or after its
    return type there), its parameters, then the brace."""
    for i, (rel, func) in enumerate(s[:2] for s in PROGRAMS[name]["sites"]):
        path = os.path.join(tree, rel)
        with open(path) as f:
            src = f.read()
        m = re.search(r"^(?:[A-Za-z_][\w]*[ \t\*]+)*%s\s*\([^;{}#]*\)\s*\{" %
                      re.escape(func), masked(src), re.M)
        if not m:
            sys.exit("programs.py: no definition of %s in %s" % (func, rel))
        at = m.end()
        src = src[:at] + " PD_PLANT(%d);" % i + src[at:]
        with open(path, "w") as f:
            f.write(src)


# the truth input of each program (callgrind is some 50 times slower than
# the program): the same kind of work, about a quarter of it
# gzip's deflate and mawk's execute run once a run: a plant there is a
# fixed cost, so they are calibrated on the input they are recorded on
# (on a quarter of it, +20 % came out +5 % on the whole).
TRUTH = {"bzip2.txt": "bzip2-small.txt", "xz.txt": "xz-small.txt",
         "zstd.txt": "zstd-small.txt", "doc.xml": "doc-small.xml",
         "doc.yaml": "doc-small.yaml", "audio.wav": "audio-small.wav",
         "bench.lua": "bench.lua 0.25"}


def command(name, work, build, truth=False):
    """The shell command of one run of a build: the program's run line
    with its binary and inputs (the truth input with truth)."""
    run = PROGRAMS[name]["run"]
    if truth:
        for full, small in TRUTH.items():
            run = re.sub(r"INPUTS/%s\b" % re.escape(full), "INPUTS/" + small,
                         run)
    exe, _, rest = run.partition(" ")
    return ("%s %s" % (os.path.join(work, name, "bin", build),
                       rest.replace("INPUTS", os.path.join(work, "inputs")))
            ).rstrip()


def symbol(name, site):
    """The name profiles give the function of a site: the site's third
    element when it has one (an instance the compiler made of an inline
    template), else the function; PREFIX(x) of expat's tokenizer is its
    UTF-8 instance normal_x."""
    s = PROGRAMS[name]["sites"][site]
    if len(s) > 2:
        return s[2]
    m = re.match(r"PREFIX\((\w+)\)", s[1])
    return "normal_" + m.group(1) if m else s[1]


def counts(name, work):
    path = os.path.join(work, name, "counts.json")
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return json.load(f)


def main():
    cmd = sys.argv[1]
    if cmd == "list":
        print(" ".join(p for p in PROGRAMS if "shape" not in PROGRAMS[p]))
    elif cmd == "shapes":
        print(" ".join(p for p in PROGRAMS if "shape" in PROGRAMS[p]))
    elif cmd == "shape":
        print(PROGRAMS[sys.argv[2]]["shape"])
    elif cmd == "variants" and "shape" in PROGRAMS[sys.argv[2]]:
        # PLANT_FN 2 is the shape's second function where it has one
        two = PROGRAMS[sys.argv[2]]["sites"][1][1] != \
            PROGRAMS[sys.argv[2]]["sites"][0][1]
        for v, (site, pct) in VARIANTS.items():
            print("%s\t-DPLANT_FN=%d -DPLANT_PCT=%d" % (
                v, 2 if site and two else 1, round(pct)))
    elif cmd == "variants":
        k = counts(sys.argv[2], sys.argv[3])
        for v, (site, _) in VARIANTS.items():
            if v in k:
                print("%s\t-DPD_K%d=%d" % (v, site, k[v]))
    elif cmd == "plant":
        plant(sys.argv[2], sys.argv[3])
    elif cmd == "run":
        print(command(sys.argv[2], sys.argv[3], sys.argv[4]))
    elif cmd == "info":
        print(PROGRAMS[sys.argv[2]])


if __name__ == "__main__":
    main()
