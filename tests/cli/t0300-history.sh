#!/bin/sh
# Bundles and the history: bundle init, ingest, runs, idempotence, refusal,
# compare with several runs per side, ambiguous revisions.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 not installed: skipped"; exit 77; }
command -v git >/dev/null || { echo "git not installed: skipped"; exit 77; }
export PERFDIFF_DB="$T/h.db"
D=$PD_ROOT/fixtures/demo

# bundle init inside a git repository fills build_meta.json.
mkdir "$T/repo" && cd "$T/repo" && git init -q && git -c user.name=t -c user.email=t@e \
	commit -q --allow-empty -m one && cd - >/dev/null
printf 'dataset bytes\n' >"$T/data.bin"
(cd "$T/repo" && CFLAGS="-O2 -g" "$PERFDIFF" bundle init "$T/b1" --scenario demo \
	--cache warm --dataset "$T/data.bin") >"$T/out" 2>"$T/err"
[ $? -eq 0 ] && ok || not_ok "bundle init: $(cat "$T/err")"
head_sha=$(git -C "$T/repo" rev-parse HEAD)
data_sha=$(sha256 "$T/data.bin")
if python3 - "$T/b1/build_meta.json" "$head_sha" "$data_sha" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
assert m["git_sha"] == sys.argv[2], m
assert m["dataset_hash"] == sys.argv[3], m
assert m["scenario"] == "demo" and m["cache"] == "warm"
assert m["cflags"] == "-O2 -g" and m["commit_date"] and m["host"]
PY
then ok; else not_ok "build_meta.json contents"; fi
for d in dist inputs profiles; do [ -d "$T/b1/$d" ] && ok || not_ok "no $d/"; done
expect_exit 2 pd bundle init "$T/b1" --scenario demo --cache warm --sha 1234567
expect_grep "exists; not overwriting" "$T/err"

# Ingest: the demo profile as one run; again: skipped.
cp "$D/base.perf.txt.gz" "$T/b1/profiles/perf.script.txt.gz"
expect_exit 0 pd ingest "$T/b1"
expect_grep "1 run, [0-9]* function rows" "$T/out"
expect_exit 0 pd ingest "$T/b1"
expect_grep "already stored, skipped" "$T/err"
expect_exit 0 pd runs
expect_grep "$(echo "$head_sha" | cut -c1-12) *demo *warm *perf" "$T/out"
[ "$(sqlite3 "$PERFDIFF_DB" 'select count(*) from runs')" = 1 ] && ok || not_ok "one run"

# A bundle that cannot be keyed is refused whole; the database is unchanged.
sqlite3 "$PERFDIFF_DB" .dump >"$T/before.sql"
mkdir -p "$T/nokey/profiles" && cp "$D/cand.perf.txt.gz" "$T/nokey/profiles/"
expect_exit 2 pd ingest "$T/nokey"
expect_grep "nokey: no git sha" "$T/err"
expect_lines 1 "$T/err"
printf '{"git_sha": "b2b2b2b2", "scenario": "demo", "cache": "warm"}' >"$T/nokey/build_meta.json"
printf '{"profiles": [' >"$T/nokey/profiles/broken.speedscope.json"
expect_exit 2 pd ingest "$T/nokey"
expect_grep "broken.speedscope.json: byte" "$T/err"
sqlite3 "$PERFDIFF_DB" .dump >"$T/after.sql"
cmp -s "$T/before.sql" "$T/after.sql" && ok || not_ok "database changed by a refused bundle"

# The runbook's file names give the key; --cache fills what they lack.
mkdir -p "$T/rb/profiles"
cp "$PD_ROOT/fixtures/speedscope/perfview-evented.speedscope.json" \
	"$T/rb/profiles/2026-01-20_a1b2c3d_mft_large_readonly.perfview.speedscope.json"
expect_exit 0 pd ingest --cache cold "$T/rb"
[ "$(sqlite3 "$PERFDIFF_DB" "select tool||' '||scenario||' '||cache from runs where git_sha='a1b2c3d'")" = "perfview mft_large_readonly cold" ] && ok || not_ok "runbook key"

# Several runs per side: synthetic folded repeats, f0 30 % slower in cand.
python3 - "$T" <<'PY'
import os, random, sys
t = sys.argv[1]
random.seed(7)
def bundle(name, sha, slow, runs=4):
    os.makedirs("%s/%s/profiles" % (t, name))
    with open("%s/%s/build_meta.json" % (t, name), "w") as f:
        f.write('{"git_sha": "%s", "scenario": "syn", "cache": "warm", "commit_date": "2026-01-0%dT00:00:00Z"}' % (sha, 1 if not slow else 2))
    for r in range(runs):
        with open("%s/%s/profiles/run%d.folded" % (t, name, r), "w") as f:
            for i in range(40):
                n = 2000 if i else (2600 if slow else 2000)
                n = int(random.gauss(n, n ** 0.5 * 1.3))
                f.write("main;f%d %d\n" % (i, n))
bundle("s1", "abc1110000", False)
bundle("s2", "abc2220000", True)
PY
expect_exit 0 pd ingest "$T/s1" "$T/s2"
expect_exit 1 pd compare abc111 abc222 --scenario syn -f json
if python3 - "$T/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["dispersion"]["method"] == "moderated-t", d["dispersion"]
assert d["baseline"]["runs"] == 4 and d["candidate"]["runs"] == 4
top = d["functions"][0]
assert top["function"] == "f0" and top["self"]["status"] == "regressed", top
moved = [f["function"] for f in d["functions"][1:] if f["self"]["status"] in ("regressed", "improved")]
assert not moved, moved
assert top["self"]["mw_p"] is not None
PY
then ok; else not_ok "compare found the wrong thing"; fi
expect_exit 2 pd compare abc abc222 --scenario syn
expect_grep "'abc' is ambiguous: abc1110000, abc2220000" "$T/err"
expect_exit 2 pd compare abc111 fff --scenario syn
expect_grep "no stored runs of commit 'fff'" "$T/err"
expect_exit 2 pd compare abc111 abc222
expect_grep "compare wants --scenario S" "$T/err"
expect_exit 2 pd compare abc111 --scenario syn
expect_grep "compare wants BASE_REV CAND_REV (got 1 operand)" "$T/err"
# The same comparison from the files, without a database.
set -- $(ls "$T"/s1/profiles/*.folded | sed 's/^/-b /') $(ls "$T"/s2/profiles/*.folded | sed 's/^/-c /')
expect_exit 1 pd "$@"
expect_grep "regressed *self.*f0$" "$T/out"
expect_grep "moderated t-test over 4 + 4 runs" "$T/out"
# The example SQL in docs/history.md runs as written on this database.
python3 - "$PD_ROOT/docs/history.md" >"$T/examples.sql" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
for block in re.findall(r"```sql\n(.*?)```", text, re.S):
    print(block.replace("'mft_large'", "'syn'").replace("'parse_record'", "'f0'"))
PY
if sqlite3 -bail "$PERFDIFF_DB" <"$T/examples.sql" >"$T/sqlout" 2>"$T/sqlerr"; then ok; else
	not_ok "docs/history.md examples: $(cat "$T/sqlerr")"
fi
expect_grep "abc2220000" "$T/sqlout"
# Two bundle folders diff directly; differing build metadata is a warning.
sed 's/"warm"/"warm", "cflags": "-O3"/' "$T/s2/build_meta.json" >"$T/m" && mv "$T/m" "$T/s2/build_meta.json"
sed 's/"warm"/"warm", "cflags": "-O2"/' "$T/s1/build_meta.json" >"$T/m" && mv "$T/m" "$T/s1/build_meta.json"
expect_exit 1 pd "$T/s1" "$T/s2"
expect_grep "build flags differ: baseline -O2, candidate -O3" "$T/err"
expect_grep "regressed *self.*f0$" "$T/out"
finish
