#!/bin/sh
# The Windows build (scripts/build-windows.sh): perfdiff.exe cross-compiled
# with mingw-w64 and run under wine says what the Linux build says, byte
# for byte and with the same exit status: the README's demo as text and
# as JSON, a folded and a speedscope comparison, a history ingested and
# its trend, and the one line a PostgreSQL history gets. The first run
# builds the libraries from Debian's sources into .cache/windows (some
# minutes); later runs reuse them. Skips without mingw-w64 or wine.
. "$(dirname "$0")/lib.sh"
command -v x86_64-w64-mingw32-gcc >/dev/null ||
	{ echo "x86_64-w64-mingw32-gcc not installed (mingw-w64): skipped"; exit 77; }
WINE=$(command -v wine64 || command -v wine) ||
	{ echo "wine not installed (wine64 or wine): skipped"; exit 77; }
# the libraries' sources, unless a previous run left them built
if [ ! -f "${PD_WIN_CACHE:-$PD_ROOT/.cache/windows}/prefix/.done-nettle" ]; then
	for t in dpkg-source tclsh; do
		command -v $t >/dev/null ||
			{ echo "$t not installed (dpkg-dev, tcl): skipped"; exit 77; }
	done
	apt-cache showsrc zlib >/dev/null 2>&1 ||
		{ echo "no deb-src line in the apt sources: skipped"; exit 77; }
fi
export WINEDEBUG=-all
export WINEPREFIX="${PD_WINEPREFIX:-$PD_ROOT/.cache/windows/wine}"
expect_exit 0 "$PD_ROOT/scripts/build-windows.sh" "$T/win"
exe=$T/win/perfdiff.exe
[ -f "$exe" ] || { not_ok "no perfdiff.exe: $(tail -n 20 "$T/err")"; finish; }
# wine makes its prefix on the first run and says so on stderr: once here,
# before any run whose messages are compared
"$WINE" "$exe" version >/dev/null 2>&1

# JSON the same but for the last bits of a number: the p-values against
# the threshold go through lgamma and exp, whose last bits differ between
# glibc and mingw-w64's libm (0.11654552217629308 and ...309)
json_near() {
	python3 - "$1" "$2" <<'PY'
import json, math, sys
def near(a, b):
    if isinstance(a, float) or isinstance(b, float):
        if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
            return False
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-300)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(near(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(near, a, b))
    return a == b
sys.exit(0 if near(json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))) else 1)
PY
}

# same STATUS NAME ARGS...: perfdiff and perfdiff.exe run in $T/w with
# ARGS exit STATUS (-: whatever Linux's is) and write the same standard output (JSON: the same
# tree, numbers within 1e-12) and error
same() {
	want=$1 name=$2
	shift 2
	(cd "$T/w" && "$PERFDIFF" "$@" >"../$name.lin" 2>"../$name.lin.err")
	lin=$?
	(cd "$T/w" && "$WINE" "$exe" "$@" >"../$name.win" 2>"../$name.win.err")
	win=$?
	# wine on a loaded machine now and then fails to start a program and
	# exits 1 with nothing written: where Linux wrote something and the
	# Windows run nothing, it is said and run once more
	if [ ! -s "$T/$name.win" ] && [ -s "$T/$name.lin" ]; then
		echo "note: $name: no output from wine (exit $win):" \
			"$(head -c 300 "$T/$name.win.err"); run again"
		(cd "$T/w" && "$WINE" "$exe" "$@" >"../$name.win" 2>"../$name.win.err")
		win=$?
	fi
	[ "$want" = - ] && want=$lin
	if [ "$lin" -ne "$want" ] || [ "$win" -ne "$want" ]; then
		not_ok "$name: exit $lin on Linux, $win on Windows, want $want:" \
			"$(head -c 300 "$T/$name.win.err")"
	elif ! cmp -s "$T/$name.lin" "$T/$name.win" &&
		! { case $name in *json*) json_near "$T/$name.lin" "$T/$name.win" ;;
		*) false ;; esac; }; then
		not_ok "$name: the outputs differ: $(diff "$T/$name.lin" "$T/$name.win" | head -n 10)" \
			"(Windows said: $(head -c 300 "$T/$name.win.err"))"
	elif ! cmp -s "$T/$name.lin.err" "$T/$name.win.err"; then
		not_ok "$name: the messages differ: $(diff "$T/$name.lin.err" "$T/$name.win.err" | head -n 10)"
	else ok; fi
}

mkdir -p "$T/w"
cp "$PD_ROOT/fixtures/demo/base.perf.txt.gz" "$PD_ROOT/fixtures/demo/cand.perf.txt.gz" "$T/w/"
same 1 demo base.perf.txt.gz cand.perf.txt.gz
same 1 demo-json -f json base.perf.txt.gz cand.perf.txt.gz
expect_grep '"function":.*"parse_record' "$T/demo-json.win"
# the HTML report, byte for byte; the XLSX one as its cells read
(cd "$T/w" && "$PERFDIFF" -f html -o ../lin.html base.perf.txt.gz cand.perf.txt.gz \
	2>/dev/null)
(cd "$T/w" && "$WINE" "$exe" -f html -o ../win.html base.perf.txt.gz \
	cand.perf.txt.gz 2>/dev/null)
# (byte for byte but the last digits of the numbers: the C libraries'
# exp and log may round a last bit apart; within 1e-12, as the JSON)
if cmp -s "$T/lin.html" "$T/win.html" || python3 - "$T/lin.html" "$T/win.html" <<'PY'
import math, re, sys
num = re.compile(r"-?\d+\.\d+(?:[eE][-+]?\d+)?")
a, b = (open(f, encoding="utf-8").read() for f in sys.argv[1:3])
na, nb = num.findall(a), num.findall(b)
ok = num.sub("#", a) == num.sub("#", b) and len(na) == len(nb) and all(
    math.isclose(float(x), float(y), rel_tol=1e-12, abs_tol=1e-300)
    for x, y in zip(na, nb))
sys.exit(0 if ok else 1)
PY
then ok; else not_ok "the HTML reports differ"; fi
if command -v xlsx2csv >/dev/null; then
	(cd "$T/w" && "$PERFDIFF" -f xlsx -o ../lin.xlsx base.perf.txt.gz \
		cand.perf.txt.gz 2>/dev/null)
	(cd "$T/w" && "$WINE" "$exe" -f xlsx -o ../win.xlsx base.perf.txt.gz \
		cand.perf.txt.gz 2>/dev/null)
	xlsx2csv -a "$T/lin.xlsx" >"$T/lin.csv" 2>&1
	xlsx2csv -a "$T/win.xlsx" >"$T/win.csv" 2>&1
	cmp -s "$T/lin.csv" "$T/win.csv" && ok || not_ok "the XLSX reports differ"
else
	echo "xlsx2csv not installed: the XLSX report not compared"
fi
# -o: written under a temporary name and renamed over what was there
(cd "$T/w" && "$PERFDIFF" -f md -o ../o.lin.md base.perf.txt.gz cand.perf.txt.gz \
	>/dev/null 2>&1)
for i in 1 2; do
	(cd "$T/w" && "$WINE" "$exe" -f md -o o.md base.perf.txt.gz \
		cand.perf.txt.gz >/dev/null 2>&1)
	[ $? -eq 1 ] && cmp -s "$T/w/o.md" "$T/o.lin.md" && ok ||
		not_ok "-o o.md differs from Linux's (run $i)"
done
[ -z "$(ls "$T/w" | grep tmp)" ] && ok || not_ok "temporary files left: $(ls "$T/w")"
# the demo as folded stacks and as speedscope, written by the Linux build
for s in base cand; do
	for f in folded speedscope; do
		pd convert -f "$f" -o "$T/w/$s.$f" "$T/w/$s.perf.txt.gz" ||
			not_ok "convert $s to $f"
	done
	mv "$T/w/$s.speedscope" "$T/w/$s.speedscope.json"
done
same 1 folded base.folded cand.folded
same 1 folded-json -f json base.folded cand.folded
same 1 speedscope base.speedscope.json cand.speedscope.json
same 1 speedscope-md -f md base.speedscope.json cand.speedscope.json
same 0 convert convert -f folded cand.speedscope.json
same 2 missing base.folded no-such.folded
# a path with Windows' separator: the file's name is what follows it
mkdir -p "$T/w/sub"
cp "$T/w/base.folded" "$T/w/sub/"
(cd "$T/w" && "$PERFDIFF" convert -f speedscope sub/base.folded >../bs.lin 2>/dev/null)
(cd "$T/w" && "$WINE" "$exe" convert -f speedscope 'sub\base.folded' >../bs.win 2>/dev/null)
cmp -s "$T/bs.lin" "$T/bs.win" && ok || not_ok "sub\\base.folded is not named base.folded"
# a name outside ASCII travels as UTF-8 (the manifest's code page)
cp "$T/w/base.folded" "$T/w/café.folded"
same - utf8 show café.folded
expect_grep "^café.folded:" "$T/utf8.win"
# a profile down a pipe, spooled to a temporary file (TEMP on Windows)
(cd "$T/w" && gzip -dc base.perf.txt.gz | "$PERFDIFF" - cand.perf.txt.gz \
	>"$T/pipe.lin" 2>/dev/null)
(cd "$T/w" && gzip -dc base.perf.txt.gz | "$WINE" "$exe" - cand.perf.txt.gz \
	>"$T/pipe.win" 2>/dev/null)
[ $? -eq 1 ] && cmp -s "$T/pipe.lin" "$T/pipe.win" && ok ||
	not_ok "a pipe: $(diff "$T/pipe.lin" "$T/pipe.win" | head -n 5)"
# regular expressions (the Windows build's own matcher)
same - peek peek 'parse_rec(ord|x)$' base.folded cand.folded
expect_grep "parse_record" "$T/peek.win"
same - focus --focus '^(main|[a-z]+_rec[[:alpha:]]{3})' base.folded cand.folded
same - hide --hide 'READ|_[[:digit:]]+$' base.folded cand.folded
same - ignore --ignore '^(strtol|memcpy)?$|ab+c' base.folded cand.folded
# a group's first way fails later on: the next one is tried
same - backtrack --focus '^(p|pa)rse_rec(o|or)d$' base.folded cand.folded
expect_grep "parse_record" "$T/backtrack.win"
same - bounds peek '^[a-z]{2,}_rec[a-z]{1,}$' base.folded cand.folded
# DHAT's allocator frames: a long default pattern of nested alternatives
cp "$PD_ROOT/fixtures/dhat/ad-hoc.dhat.json" "$T/w/"
same 0 dhat show ad-hoc.dhat.json

# the importers on the corpus: the smallest file of each folder, read by
# both builds the same
if corpus_part "the importers on the corpus"; then
	mkdir -p "$T/w/corpus"
	for d in "$PD_CORPUS"/*/; do
		f=$(ls -S "$d" | grep -v 'baseline\.txt$\|\.md$\|\.wpaProfile$' |
			tail -n 1)
		[ -n "$f" ] || continue
		cp "$d$f" "$T/w/corpus/$f"
		same - "corpus-json-$(basename "$d")" show -f json "corpus/$f"
	done
	# the ETW trace with samples, stacks by key and .NET methods
	if have_extra etl/perfview-net.4.5.2.x64.etl.zip; then
		cp "$PD_CORPUS/etl/perfview-net.4.5.2.x64.etl.zip" "$T/w/corpus/"
		same 0 corpus-json-etl-net show -f json \
			corpus/perfview-net.4.5.2.x64.etl.zip
	fi
fi

# a history: eight commits of two runs each, parse slower from the fifth
tail=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
for c in 1 2 3 4 5 6 7 8; do
	b=$T/w/b$c
	mkdir -p "$b/profiles"
	printf '{"git_sha": "%02d%s", "scenario": "win", "cache": "warm", "commit_date": "2026-05-%02dT00:00:00Z"}\n' \
		"$c" "$tail" "$c" >"$b/build_meta.json"
	p=1000
	[ "$c" -ge 5 ] && p=1400
	for r in 1 2; do
		printf 'main;parse %d\nmain;read %d\nmain;idle 1\n' \
			$((p + r)) $((2000 - r)) >"$b/profiles/run.$r.folded"
	done
done
(cd "$T/w" && "$PERFDIFF" ingest --db lin.db b? >/dev/null 2>&1) ||
	not_ok "ingest on Linux"
(cd "$T/w" && "$WINE" "$exe" ingest --db win.db b? >"$T/ingest.out" 2>&1) ||
	not_ok "ingest on Windows: $(head -c 300 "$T/ingest.out")"
for db in lin win; do
	same 1 "trend-$db" trend --db "$db.db" --scenario win
	same 1 "trend-json-$db" trend --db "$db.db" --scenario win -f json
done
# a history the Windows build wrote reads the same on Linux
if cmp -s "$T/trend-json-lin.lin" "$T/trend-json-win.lin"; then ok; else
	not_ok "the trends of the two histories differ"
fi
# the site of a history (its trend pages through open_memstream)
(cd "$T/w" && "$PERFDIFF" site ../site-lin --db lin.db --pages 2 >/dev/null 2>&1)
(cd "$T/w" && "$WINE" "$exe" site ../site-win --db lin.db --pages 2 \
	>"$T/site.out" 2>&1) || not_ok "site on Windows: $(head -c 300 "$T/site.out")"
# (pages hold the comparisons' JSON: numbers within 1e-12 again)
if python3 - "$T/site-lin" "$T/site-win" >"$T/site.diff" <<'PY'
import math, os, re, sys
num = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?|-?\d+e[-+]?\d+")
def parts(path):
    t = open(path, encoding="utf-8").read()
    return num.split(t), [float(x) for x in num.findall(t)]
bad = []
a, b = sys.argv[1], sys.argv[2]
for root, _, files in os.walk(a):
    for f in files:
        x = os.path.join(root, f)
        y = os.path.join(b, os.path.relpath(x, a))
        (ta, na), (tb, nb) = parts(x), parts(y)
        if ta != tb or len(na) != len(nb) or not all(
                math.isclose(u, v, rel_tol=1e-12) for u, v in zip(na, nb)):
            bad.append(os.path.relpath(x, a))
n = sum(len(f) for _, _, f in os.walk(b)) - sum(len(f) for _, _, f in os.walk(a))
print(" ".join(bad), "extra files: %d" % n if n else "")
sys.exit(1 if bad or n else 0)
PY
then ok; else
	not_ok "the sites differ: $(head -c 400 "$T/site.diff")"
fi
# A symbolizer found on PATH as NAME.exe and run through CreateProcess:
# a samply profile of a PE + PDB built here, symbolicated by a stand-in
# llvm-symbolizer.exe (tests/tools/fake_symbolizer.c: each address named
# fake_ADDR) on the Windows PATH (WINEPATH): stdin from a file, stdout
# down a pipe, run in the folder of the links it is given.
lb=
for d in $(ls -d /usr/lib/llvm-*/bin 2>/dev/null | sort -t- -k2 -n -r); do
	[ -x "$d/clang-cl" ] && [ -x "$d/lld-link" ] && [ -x "$d/llvm-readobj" ] &&
		lb=$d && break
done
if [ -z "$lb" ] || ! command -v x86_64-w64-mingw32-gcc >/dev/null ||
	! command -v winepath >/dev/null; then
	echo "note: clang-cl, lld-link, llvm-readobj or winepath missing: the symbolizer check skipped"
else
	S=$T/w/sym
	mkdir -p "$S/dist" "$S/bin"
	"$lb/clang-cl" --target=x86_64-pc-windows-msvc /c /O1 /Z7 /GS- \
		"/Fo$S/app.obj" -- "$PD_ROOT/fixtures/symbols/app.c" >/dev/null &&
		"$lb/lld-link" /nologo /entry:main /subsystem:console \
			/nodefaultlib /debug /timestamp:1593835520 \
			"/pdb:$S/dist/app.pdb" "/map:$S/app.map" \
			"/out:$S/dist/app.exe" "$S/app.obj" &&
		"$lb/llvm-readobj" --file-headers --coff-debug-directory \
			"$S/dist/app.exe" >"$S/ro.txt" &&
		x86_64-w64-mingw32-gcc -O2 -o "$S/bin/llvm-symbolizer.exe" \
			"$PD_ROOT/tests/tools/fake_symbolizer.c" ||
		not_ok "the PE, its PDB or the stand-in symbolizer not built"
	python3 "$PD_ROOT/tests/tools/pe_ids.py" "$S" &&
		python3 - "$S" "$PD_ROOT/tests/tools/samply_make.py" <<'PY'
import json, subprocess, sys
d, make = sys.argv[1], sys.argv[2]
ids = json.load(open(d + "/ids.json"))
lib, frames, base = ids["lib"], ids["frames"], ids["base"]
top = ["main", "process_batch"]
spec = {"lib": lib, "frames": frames,
        "stacks": [[top + ["parse_record"], 400], [top + ["hash_key"], 200]]}
json.dump(spec, open(d + "/app.spec", "w"))
subprocess.check_call([sys.executable, make, d + "/app.spec", d + "/app.json"])
# the addresses the symbolizer is asked for: rva + 2 from the image base
open(d + "/want", "w").write("".join(
    "fake_0x%x\n" % (base + frames[f] + 2)
    for f in ("parse_record", "hash_key", "process_batch", "main")))
PY
	(cd "$S" && WINEPATH="$(winepath -w "$S/bin" 2>/dev/null)" \
		"$WINE" "$exe" show -f json --symbols dist app.json \
		>"$T/sym.win" 2>"$T/sym.win.err")
	if python3 - "$T/sym.win" "$S/want" <<'PY'; then ok; else not_ok "symbolizer on Windows: $(head -c 300 "$T/sym.win.err")"; fi
import json, sys
d = json.load(open(sys.argv[1]))
got = sorted(x["function"] for x in d["functions"])
assert got == sorted(open(sys.argv[2]).read().split()), got
PY
	expect_grep "symbols for app.exe: 4 of 4 addresses named; from dist.app.exe and dist.app.pdb" "$T/sym.win.err"
fi

# PostgreSQL is left out of the Windows build: one line says so
(cd "$T/w" && "$WINE" "$exe" trend --db postgresql://localhost/none \
	--scenario win >"$T/pg.out" 2>"$T/pg.err")
[ $? -eq 2 ] && ok || not_ok "postgresql:// on Windows did not exit 2"
expect_grep "built without PostgreSQL" "$T/pg.err"
expect_lines 1 "$T/pg.err"
finish
