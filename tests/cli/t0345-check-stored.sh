#!/bin/sh
# check against a stored commit (docs/history.md, "Stored runs and
# files"): a candidate binary of another name is paired by its function
# names, as diff pairs files; the stored runs are aggregated from their
# stack trees with the kernel's time set apart, as the file's is; and a
# history whose trees cannot be read back (an older perfdiff) is compared
# on whole totals, where a burst of page faults under main, which moves
# main's and the profile's totals by exactly the system frames' own time,
# is no regression. Counts by hand: work 2000 and other 1000 samples on
# both sides (2018 and 988 in the stored commit), 600 kernel samples
# under main in the candidate only.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "sqlite3 not installed: skipped"; exit 77; }
history_db h
# perf script text: BIN WORK OTHER KERNEL
perfscript() {
	python3 - "$@" <<'PY'
import sys
binary, work, other, kern = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
t = 1.0
def sample(frames):
    global t
    t += 0.001
    print("app 100 [000] %.6f: 1000000 cpu-clock:" % t)
    for addr, name, mod in frames:
        print("\t%16x %s+0x10 (%s)" % (addr, name, mod))
    print()
app = "/usr/bin/" + binary
for _ in range(work):
    sample([(0x1010, "work", app), (0x1000, "main", app)])
for _ in range(other):
    sample([(0x2010, "other", app), (0x1000, "main", app)])
for _ in range(kern):
    sample([(0xffffffff81000000, "clear_page_erms", "[kernel.kallsyms]"),
            (0xffffffff81000100, "exc_page_fault", "[kernel.kallsyms]"),
            (0x1000, "main", app)])
PY
}
tail=cccccccccccccccccccccccccccccccccccccc
i=1
for i in 1 2 3 4 5 6; do
	b=$T/b$i
	mkdir -p "$b/profiles"
	printf '{"git_sha": "%02d%s", "scenario": "s", "cache": "warm", "commit_date": "2026-03-%02dT00:00:00Z"}\n' \
		"$i" "$tail" "$i" >"$b/build_meta.json"
	perfscript app-old $((2000 + i * 3)) $((1000 - i * 2)) 0 >"$b/profiles/run.1.perf.txt"
done
expect_exit 0 pd ingest "$T"/b1 "$T"/b2 "$T"/b3 "$T"/b4 "$T"/b5 "$T"/b6
perfscript app-new 2000 1000 600 >"$T/cand.txt"
# check_stored CAND-MAIN-SAMPLES CHECK WHAT: the check exits 0 or 125,
# every function is paired across the renamed binary (no added or removed
# halves), work did not move, main's total moved from the stored 3006
# samples to CAND-MAIN-SAMPLES, and CHECK (Python on d and main) holds.
check_stored() {
	pd check -f json "db:06$tail:s:warm" "$T/cand.txt" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" -ne 1 ] && python3 - "$T/out" "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
by = {f["function"]: f for f in d["functions"]}
for name in ("work", "other", "main"):
    f = by[name]
    assert f["module"] == "app-old", f
    assert f["self"]["status"] not in ("added", "removed"), f["self"]
    assert f["total"]["status"] not in ("added", "removed"), f["total"]
assert by["work"]["self"]["status"] not in ("regressed", "improved"), by["work"]["self"]
assert d["verdict"] != "regressed"
assert any("matched to app-old" in w for w in d["warnings"]), d["warnings"]
main = by["main"]["total"]
assert abs(main["delta_pct"] - 100 * (float(sys.argv[2]) / 3006 - 1)) < 0.5, main
exec(sys.argv[3])
PY
	then ok; else not_ok "check db: $3 (exit $rc): $(head -c 600 "$T/out")"; fi
}
# The history's stack trees: both sides set the kernel apart alike, so
# main's total is 3000 samples in the candidate (2000 + 1000, the
# kernel's 600 its own) and the kernel time is reported apart.
check_stored 3000 'assert d["candidate"]["system_set_apart"] == 600 * 1e6, d["candidate"]' \
	"kernel time set apart on both sides"
# A stored run keeps its time blocks' dispersions (history.md, "Tables"),
# but they no longer weigh in a verdict: how a run's samples scatter over
# its time blocks did not predict how counts vary between runs. Stored,
# "burst" has its 400 samples in two bursts, in the first and the fourth
# tenth of the run; "even.txt" spreads the same 400 evenly (every sixth
# sample of 2400). The candidate "grown.txt" has work's 2000 samples and
# burst doubled to 800, spread evenly (two of every seven of 2800): burst
# +100 % against work's 0 %. Bursty or even, stored or a file, the
# baseline gives burst the same verdict and the same interval, and no
# burst dispersion.
bursty() { # MODE: perf text of 2000 steady samples and burst's: 400 in
	# two bursts (1), 400 evenly (0), or 800 evenly (2)
	python3 - "$1" <<'PY'
import sys
mode = sys.argv[1]
n = 2800 if mode == "2" else 2400
t = 1.0
for i in range(n):
    t += 0.001
    if mode == "1":
        burst = (i < 240 or 720 <= i < 960) and i % 6 < 5
    elif mode == "0":
        burst = i % 6 == 5
    else:
        burst = i % 7 >= 5
    print("app 100 [000] %.6f: 1000000 cpu-clock:" % t)
    print("\t%16x %s+0x10 (/usr/bin/app)" % ((0x3010, "burst") if burst else (0x1010, "work")))
    print("\t%16x main+0x10 (/usr/bin/app)\n" % 0x1000)
PY
}
b=$T/b7
mkdir -p "$b/profiles"
printf '{"git_sha": "07%s", "scenario": "s", "cache": "warm", "commit_date": "2026-03-07T00:00:00Z"}\n' \
	"$tail" >"$b/build_meta.json"
bursty 1 >"$b/profiles/run.1.perf.txt"
bursty 0 >"$T/even.txt"
bursty 2 >"$T/grown.txt"
expect_exit 0 pd ingest "$b"
pd -f json "$b/profiles/run.1.perf.txt" "$T/grown.txt" >"$T/files.json" 2>/dev/null
pd -f json "$T/even.txt" "$T/grown.txt" >"$T/even.json" 2>/dev/null
pd check -f json "db:07$tail:s:warm" "$T/grown.txt" >"$T/stored.json" 2>/dev/null
if python3 - "$T/files.json" "$T/stored.json" "$T/even.json" <<'PY'
import json, sys
def burst(path):
    d = json.load(open(path))
    f = [f["self"] for f in d["functions"] if f["function"] == "burst"][0]
    assert f["baseline_samples"] == 400 and f["candidate_samples"] == 800, f
    assert f.get("burst_dispersion") is None, f
    return f["status"], f["ci_low"], f["ci_high"]
got = [burst(p) for p in sys.argv[1:]]
assert got[0][0] == "regressed", got
for g in got[1:]:
    assert g[0] == got[0][0], got
    assert abs(g[1] - got[0][1]) < 1e-9 and abs(g[2] - got[0][2]) < 1e-9, got
PY
then ok; else not_ok "bursts change no verdict: $(head -c 300 "$T/stored.json")"; fi
# A damaged dispersion blob: one line naming the run, and the error
# status (check's is 128, which stops a bisect; compare's 2).
run7=$(history_sql "SELECT id FROM runs WHERE git_sha LIKE '07%'")
case "$PERFDIFF_DB" in
postgres*) history_sql "UPDATE run_bursts SET rows = rows || '\xff'::bytea WHERE run_id = $run7" ;;
*) history_sql "UPDATE run_bursts SET rows = rows || x'ff' WHERE run_id = $run7" ;;
esac
expect_exit 128 pd check "db:07$tail:s:warm" "$T/even.txt"
expect_lines 1 "$T/err"
expect_grep ": run $run7: damaged dispersions$" "$T/err"
expect_exit 2 pd compare "06$tail" "07$tail" --scenario s
expect_lines 1 "$T/err"
expect_grep ": run $run7: damaged dispersions$" "$T/err"
# A history written by an older perfdiff (trees it cannot read back):
# whole totals on both sides, and main's +20 % (2000 + 1000 + 600 against
# 3006), which is just the system frames' own time, is left inconclusive.
history_sql 'UPDATE run_stacks SET ids = 0'
check_stored 3600 'assert main["status"] == "inconclusive", main
assert d["total"]["status"] == "inconclusive", d["total"]' \
	"older history, whole totals guarded"
finish
