#!/bin/sh
# Symbols from the right build, or none: a program built twice for Windows
# (PE + PDB, clang-cl and lld-link) and for macOS (Mach-O arm64 + dSYM,
# clang, ld64.lld and dsymutil), the candidate with a new function first so
# that every address moves. Profiles in samply's shape carry addresses
# only, with sample counts set here; function addresses come from the
# linker's map file (PE) and llvm-nm (Mach-O), ids from llvm-readobj and
# llvm-dwarfdump: none of it from perfdiff.
. "$(dirname "$0")/lib.sh"

# llvm's own bin directory has the cross tools (Debian: clang, lld, llvm).
tools="clang clang-cl lld-link ld64.lld dsymutil llvm-readobj llvm-nm llvm-strip llvm-dwarfdump llvm-symbolizer"
llvm_bin $tools
SRC=$PD_ROOT/fixtures/symbols/app.c
FUNCS="parse_record hash_key sort_bucket process_batch main"

# ---- Windows: two builds, distinct link times as real builds have ----
win_build() { # SIDE DEFINE TIMESTAMP
	mkdir -p "$T/win/$1"
	"$L/clang-cl" --target=x86_64-pc-windows-msvc /c /O1 /Z7 /GS- $2 \
		"/Fo$T/win/$1/app.obj" -- "$SRC" >/dev/null &&
		"$L/lld-link" /nologo /entry:main /subsystem:console /nodefaultlib \
			/debug "/timestamp:$3" "/pdb:$T/win/$1/app.pdb" \
			"/map:$T/win/$1/app.map" "/out:$T/win/$1/app.exe" \
			"$T/win/$1/app.obj"
}
win_build base "" 1593835520 || exit 1
win_build cand -DCAND 1593839120 || exit 1

# Ids and function RVAs from llvm-readobj and the linker's map.
win_spec() { # SIDE -> $T/win/SIDE.spec
	"$L/llvm-readobj" --file-headers --coff-debug-directory "$T/win/$1/app.exe" >"$T/win/$1/ro.txt"
	python3 "$PD_ROOT/tests/tools/pe_ids.py" "$T/win/$1" &&
		python3 -c 'import json, sys; i = json.load(open(sys.argv[1] + "/ids.json"))
open(sys.argv[1] + "/debugid", "w").write(i["lib"]["breakpadId"])
open(sys.argv[1] + "/codeid", "w").write(i["lib"]["codeId"])' "$T/win/$1"
}
win_spec base && win_spec cand || exit 1

# Sample counts: the truth every check below compares with.
profiles() { # DIR: writes DIR/base.json and DIR/cand.json from DIR/{base,cand}/ids.json
	python3 - "$1" "$PD_ROOT/tests/tools/samply_make.py" <<'PY'
import json, subprocess, sys
d, make = sys.argv[1], sys.argv[2]
top = ["main", "process_batch"]
counts = {"base": {"parse_record": 400, "hash_key": 200, "sort_bucket": 100},
          "cand": {"validate_input": 300, "parse_record": 800,
                   "hash_key": 200, "sort_bucket": 100}}
for side in ("base", "cand"):
    spec = json.load(open("%s/%s/ids.json" % (d, side)))
    stacks = [[top + [f], n] for f, n in counts[side].items()]
    stacks += [[top, 50], [["main"], 10]]
    if "mix_site" in spec["frames"]:  # inside mix_bits, inlined
        stacks += [[top + ["mix_site"], 120]]
    spec["stacks"] = stacks
    json.dump(spec, open("%s/%s.spec" % (d, side), "w"))
    subprocess.check_call([sys.executable, make, "%s/%s.spec" % (d, side),
                           "%s/%s.json" % (d, side)])
PY
}
profiles "$T/win" || exit 1

# check_diff WHAT [INLINE]: the diff in $T/out names every function with
# its true counts on both sides, and no frame stayed an address. INLINE:
# "frames" when the 120 samples inside the inlined mix_bits must be a
# mix_bits frame under parse_record (DWARF), "folded" when they are
# parse_record's own (a symbol table knows no inlining).
check_diff() {
	if python3 - "$T/out" "${2:-}" <<'PY'; then ok; else not_ok "$1"; fi
import json, sys
d = json.load(open(sys.argv[1]))
inline = sys.argv[2]
f = {x["function"]: x["self"] for x in d["functions"]}
tot = {x["function"]: x["total"] for x in d["functions"]}
want = {"parse_record": (400, 800), "hash_key": (200, 200),
        "sort_bucket": (100, 100), "process_batch": (50, 50),
        "main": (10, 10), "validate_input": (0, 300)}
if inline == "frames":
    want["mix_bits"] = (120, 120)
    t = tot["parse_record"]
    assert (t["baseline_samples"], t["candidate_samples"]) == (520, 920), t
elif inline == "folded":
    want["parse_record"] = (520, 920)
for name, (b, c) in want.items():
    got = f.get(name)
    assert got is not None, (name, sorted(f))
    assert (got["baseline_samples"] or 0) == b and got["candidate_samples"] == c, (name, got)
assert set(f) == set(want), sorted(f)
assert f["parse_record"]["status"] == "regressed", f["parse_record"]
assert f["hash_key"]["status"] in ("same", "inconclusive"), f["hash_key"]
assert not [w for w in d["warnings"] if "unsymbolicated" in w], d["warnings"]
PY
}

W=$T/win
# Both orders of two dist folders with the same file names: each side
# takes its own build.
expect_exit 1 pd -f json --symbols "$W/base" --symbols "$W/cand" "$W/base.json" "$W/cand.json"
check_diff "PE: --symbols base then cand"
expect_grep "baseline: symbols for app.exe: 5 of 5 addresses named; from $W/base/app.exe and $W/base/app.pdb" "$T/err"
expect_grep "candidate: symbols for app.exe: 6 of 6 addresses named; from $W/cand/app.exe and $W/cand/app.pdb" "$T/err"
expect_exit 1 pd -f json --symbols "$W/cand" --symbols "$W/base" "$W/base.json" "$W/cand.json"
check_diff "PE: --symbols cand then base"

# Bundles: each side's own dist/ names its frames without --symbols, in
# diff and in ingest (the history keeps the names, not the addresses).
for s in base cand; do
	mkdir -p "$T/bun/$s/dist" "$T/bun/$s/profiles"
	cp "$W/$s/app.exe" "$W/$s/app.pdb" "$T/bun/$s/dist/"
	cp "$W/$s.json" "$T/bun/$s/profiles/samply.profile.json"
	printf '{"git_sha": "%s", "scenario": "load"}\n' \
		"$(printf %s "$s" | sha1sum | cut -c1-40)" >"$T/bun/$s/build_meta.json"
done
expect_exit 1 pd -f json "$T/bun/base" "$T/bun/cand"
check_diff "PE: each bundle's dist/"
expect_grep "symbols for app.exe: 5 of 5 addresses named; from $T/bun/base/dist/app.exe" "$T/err"
history_db bun
expect_exit 0 pd ingest "$T/bun/base"
expect_exit 0 pd ingest "$T/bun/cand"
if [ "$(history_sql "select count(*) from functions where name like 'app.exe+%'")" = 0 ] &&
	[ "$(history_sql "select count(*) from functions where name = 'parse_record'")" -ge 1 ]; then
	ok
else
	not_ok "ingest kept addresses: $(history_sql 'select name from functions' | head -20 | tr '\n' ' ')"
fi
# Without dist/, ingest --symbols names them.
mkdir -p "$T/bun/nodist"
cp -r "$T/bun/base/profiles" "$T/bun/nodist/"
printf '{"git_sha": "%040d", "scenario": "load"}\n' 7 >"$T/bun/nodist/build_meta.json"
history_db nodist
expect_exit 0 pd ingest --symbols "$W/base" "$T/bun/nodist"
if [ "$(history_sql "select count(*) from functions where name like 'app.exe+%'")" = 0 ] &&
	[ "$(history_sql "select count(*) from functions where name = 'parse_record'")" = 1 ]; then
	ok
else
	not_ok "ingest --symbols: $(history_sql 'select name from functions' | tr '\n' ' ')"
fi

# A SymStore tree holding both builds: NAME/ID/NAME.
for s in base cand; do
	for f in app.exe:codeid app.pdb:debugid; do
		n=${f%%:*}
		id=$(cat "$W/$s/${f#*:}")
		mkdir -p "$T/store/$n/$id"
		cp "$W/$s/$n" "$T/store/$n/$id/$n"
		# two-tier (index2.txt): the first two letters first
		mkdir -p "$T/store2/ap/$n/$id"
		cp "$W/$s/$n" "$T/store2/ap/$n/$id/$n"
	done
done
touch "$T/store2/index2.txt"
expect_exit 1 pd -f json --symbols "$T/store" "$W/base.json" "$W/cand.json"
check_diff "PE: SymStore"
expect_exit 1 pd -f json --symbols "$T/store2" "$W/base.json" "$W/cand.json"
check_diff "PE: two-tier SymStore"
# _NT_SYMBOL_PATH syntax: the local folder of srv*, never the URL.
expect_exit 1 pd -f json --symbols "srv*$T/store*https://msdl.microsoft.com/download/symbols" "$W/base.json" "$W/cand.json"
check_diff "PE: srv*DIR*URL"
expect_grep "https://msdl.microsoft.com/download/symbols is a symbol server; perfdiff reads local folders only" "$T/err"
# The environment default, as cache*DIR, and --symbolizer by path.
PERFDIFF_SYMBOL_PATH="cache*$T/store2" expect_exit 1 pd -f json --symbolizer "$L/llvm-symbolizer" "$W/base.json" "$W/cand.json"
check_diff "PE: PERFDIFF_SYMBOL_PATH"
# A symbolizer that is not there: nothing named, and the note says why.
expect_exit 0 pd show -f json --symbolizer /nonexistent/llvm-symbolizer --symbols "$W/base" "$W/base.json"
expect_grep "app.exe matches, but no symbolizer was found" "$T/err"

# Only the other build's files: the baseline stays addresses, with a note
# naming both ids and the file.
expect_exit 0 pd show -f json --symbols "$W/cand" "$W/base.json"
expect_grep "symbols for app.exe: 0 of 5 addresses named; no file of this build (the profile wants debug id $(cat "$W/base/debugid"), code id $(cat "$W/base/codeid")); not used, another build: $W/cand/app" "$T/err"
expect_grep "100.0 % of the weight is in unsymbolicated frames" "$T/err"
if python3 - "$T/out" <<'PY'; then ok; else not_ok "PE: other build must not name frames"; fi
import json, sys
d = json.load(open(sys.argv[1]))
names = [x["function"] for x in d["functions"]]
assert all(n.startswith("app.exe+0x") for n in names), names
PY
# A PE without its PDB: the exe matches, the names need the PDB.
mkdir -p "$T/nopdb"
cp "$W/base/app.exe" "$T/nopdb/"
expect_exit 0 pd show -f json --symbols "$T/nopdb" "$W/base.json"
expect_grep "app.exe matches, but no app.pdb with debug id $(cat "$W/base/debugid") was found" "$T/err"
expect_no_grep '"function":"parse_record"' "$T/out"
# A PDB alone: it matches, and the note says what else is needed.
mkdir -p "$T/pdbonly"
cp "$W/base/app.pdb" "$T/pdbonly/"
expect_exit 0 pd show -f json --symbols "$T/pdbonly" "$W/base.json"
expect_grep "app.pdb matches, but the executable with code id $(cat "$W/base/codeid") is needed" "$T/err"
# A PDB renamed to look like the other build's is still the other build.
mkdir -p "$T/swapped"
cp "$W/base/app.exe" "$T/swapped/"
cp "$W/cand/app.pdb" "$T/swapped/app.pdb"
expect_exit 0 pd show -f json --symbols "$T/swapped" "$W/base.json"
expect_grep "not used, another build: $T/swapped/app.pdb (PDB, debug id $(cat "$W/cand/debugid"))" "$T/err"
expect_no_grep '"function":"parse_record"' "$T/out"

# ---- macOS: Mach-O arm64 + dSYM, stripped binaries ----
mac_build() { # SIDE DEFINE
	m=$T/mac/$1
	mkdir -p "$m/dist"
	"$L/clang" --target=arm64-apple-macos11 -O1 -g $2 -c "$SRC" -o "$m/app.o" &&
		"$L/ld64.lld" -arch arm64 -platform_version macos 11.0 11.0 -e _main \
			-o "$m/dist/app" "$m/app.o" &&
		"$L/llvm-nm" "$m/dist/app" >"$m/nm.txt" &&
		(cd "$m/dist" && "$L/dsymutil" app -o app.dSYM) &&
		"$L/llvm-dwarfdump" --uuid "$m/dist/app" >"$m/uuid.txt" &&
		"$L/llvm-dwarfdump" --debug-info "$m/dist/app.dSYM" >"$m/dwarf.txt" &&
		cp "$m/dist/app" "$m/app.unstripped" &&
		"$L/llvm-strip" "$m/dist/app"
}
mac_build base "" || exit 1
mac_build cand -DCAND || exit 1
for s in base cand; do
	python3 - "$T/mac/$s" <<'PY' || exit 1
import json, re, sys
d = sys.argv[1]
uuid = re.search(r"UUID: ([0-9A-F-]+)", open(d + "/uuid.txt").read()).group(1).replace("-", "")
text = 0x100000000  # __TEXT vmaddr of an arm64 executable
frames = {}
for line in open(d + "/nm.txt"):
    p = line.split()
    if len(p) == 3 and p[1] == "T" and p[2].startswith("_") and p[2] != "__mh_execute_header":
        frames[p[2][1:]] = int(p[0], 16) - text
# An address inside the inlined mix_bits, from the DWARF itself.
dw = open(d + "/dwarf.txt").read()
m = re.search(r'DW_TAG_inlined_subroutine\s+DW_AT_abstract_origin\s+\([0-9a-fx]+ "mix_bits"\)\s+DW_AT_low_pc\s+\(0x([0-9a-f]+)\)\s+DW_AT_high_pc\s+\(0x([0-9a-f]+)\)', dw)
lo, hi = int(m.group(1), 16), int(m.group(2), 16)
assert hi - lo >= 8
frames["mix_site"] = (lo + hi) // 2 // 4 * 4 - 2 - text  # samply_make adds 2
lib = {"name": "app", "path": "/Applications/App.app/Contents/MacOS/app",
       "debugName": "app", "debugPath": "/Applications/App.app/Contents/MacOS/app",
       "breakpadId": uuid + "0", "codeId": uuid, "arch": "arm64"}
json.dump({"lib": lib, "frames": frames}, open(d + "/ids.json", "w"))
open(d + "/uuid", "w").write(uuid)
PY
done
profiles "$T/mac" || exit 1
M=$T/mac
expect_exit 1 pd -f json --symbols "$M/base/dist" --symbols "$M/cand/dist" "$M/base.json" "$M/cand.json"
check_diff "Mach-O + dSYM: base then cand" frames
expect_grep "baseline: symbols for app: 6 of 6 addresses named; from $M/base/dist/app.dSYM/Contents/Resources/DWARF/app" "$T/err"
expect_exit 1 pd -f json --symbols "$M/cand/dist" --symbols "$M/base/dist" "$M/base.json" "$M/cand.json"
check_diff "Mach-O + dSYM: cand then base" frames
# An .app bundle with unstripped binaries (no dSYM): the symbol table.
for s in base cand; do
	mkdir -p "$T/apps/$s/App.app/Contents/MacOS"
	cp "$M/$s/app.unstripped" "$T/apps/$s/App.app/Contents/MacOS/app"
done
expect_exit 1 pd -f json --symbols "$T/apps/cand" --symbols "$T/apps/base" "$M/base.json" "$M/cand.json"
check_diff "Mach-O .app bundle" folded
# The other build's dSYM only: addresses stay, the note names the UUIDs.
mkdir -p "$T/macother"
cp -R "$M/cand/dist/app.dSYM" "$T/macother/"
expect_exit 0 pd show -f json --symbols "$T/macother" "$M/base.json"
expect_grep "symbols for app: 0 of 6 addresses named; no file of this build (the profile wants debug id $(cat "$M/base/uuid")0" "$T/err"
expect_grep "another build: $T/macother/app.dSYM/Contents/Resources/DWARF/app (Mach-O, uuid $(cat "$M/cand/uuid"))" "$T/err"
expect_no_grep '"function":"parse_record"' "$T/out"

# A profile whose library has no ids cannot be checked: left alone.
sed 's/"breakpadId": "[0-9A-F]*", "codeId": "[0-9A-F]*"/"breakpadId": "", "codeId": ""/' "$M/base.json" >"$T/noid.json"
expect_exit 0 pd show -f json --symbols "$M/base/dist" "$T/noid.json"
expect_grep "gives no debug id or code id, so no file can be checked" "$T/err"

echo "$pass passed, $failed failed"
[ "$failed" -eq 0 ]
