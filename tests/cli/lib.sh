# Shared helpers for the CLI tests. Each test is a POSIX shell script run by
# ctest under bash (whose call stack names a failed check by its line,
# check_name below) with PERFDIFF (the binary) and PD_ROOT (source tree)
# set.
# PD_WRAP (e.g. "valgrind --error-exitcode=99 --leak-check=full") wraps
# every perfdiff call.
set -u
: "${PERFDIFF:?}" "${PD_ROOT:?}"
# Real profiles that public projects' profilers wrote are never part of
# the repository: the tests read them from a folder git does not track,
# found in this order (tests/README.md, "The corpus"):
#   PD_CORPUS, when set, and then nothing else (a missing folder skips);
#   PD_EXTRA_CORPUS, its older name, the same way;
#   ../shared/corpus beside the source tree;
#   .corpus in the source tree, where scripts/fetch-corpus.sh lays it out.
# A test or a part of one that needs it skips when it is not there, with
# a note naming the script.
if [ -n "${PD_CORPUS:-}" ]; then
	:
elif [ -n "${PD_EXTRA_CORPUS:-}" ]; then
	PD_CORPUS=$PD_EXTRA_CORPUS
elif [ -d "$PD_ROOT/../shared/corpus" ]; then
	PD_CORPUS=$PD_ROOT/../shared/corpus
else
	PD_CORPUS=$PD_ROOT/.corpus
fi
PD_WRAP=${PD_WRAP:-}
T=$(mktemp -d "${TMPDIR:-/tmp}/pdcli.XXXXXX")
trap 'rm -rf "$T"' EXIT
pass=0
failed=0

pd() {
	# shellcheck disable=SC2086
	$PD_WRAP "$PERFDIFF" "$@"
}

ok() {
	pass=$((pass + 1))
}

# check_name: the check that failed, by the script's line that made it
# and the comment above that line: "t0054-expansion-limits.sh:37 (a cap
# of 10 times plus 4 MiB stops each within its first members)". The line
# is the outermost call in the script (a helper's call, not a line in the
# helper's body), and "via N" the innermost one when it differs. The
# suite runs under bash, whose call stack says so; under another shell,
# the script's name alone.
check_name() {
	if [ -z "${BASH_VERSION:-}" ]; then
		basename "$0"
		return
	fi
	# the call sites in the script, innermost first: frame i was called
	# from file BASH_SOURCE[i + 1] at its line BASH_LINENO[i]
	eval 'cn_lines=; cn_i=0
	while [ "$cn_i" -lt $((${#FUNCNAME[@]} - 1)) ]; do
		[ "${BASH_SOURCE[$((cn_i + 1))]}" = "$0" ] &&
			cn_lines="$cn_lines ${BASH_LINENO[$cn_i]}"
		cn_i=$((cn_i + 1))
	done'
	# shellcheck disable=SC2086
	set -- $cn_lines
	[ $# -gt 0 ] || { basename "$0"; return; }
	cn_in=$1
	eval "cn_out=\${$#}"
	awk -v want="$cn_out" -v via="$cn_in" -v file="$(basename "$0")" '
	# a comment block ends: the header (before any code) or the latest
	function flush() {
		if (cur == "") return
		if (!code) hdr = first; else last = cur
		cur = ""
	}
	NR >= want { exit }
	doc != "" { # inside a here-document: until its word
		t = $0
		if (strip) sub(/^\t+/, "", t)
		if (t == doc) doc = ""
		next
	}
	NR > 1 && /^[ \t]*#/ && !/shellcheck/ {
		t = $0
		sub(/^[ \t]*#+ ?/, "", t)
		if (t == "") next
		if (cur == "") first = t
		cur = cur == "" ? t : cur " " t
		next
	}
	{
		flush()
		if ($0 !~ /^[ \t]*$/) code = 1
		if (match($0, /<<-?[ \t]*[\047"]?[A-Za-z_]+/)) {
			doc = substr($0, RSTART, RLENGTH)
			strip = doc ~ /^<<-/
			sub(/^<<-?[ \t]*[\047"]?/, "", doc)
		}
	}
	END {
		if (code) flush()
		if (last == "") last = hdr
		if (length(last) > 110) last = substr(last, 1, 107) "..."
		printf "%s:%d (%s)", file, want, last
		if (via != want) printf " via %d", via
		printf "\n"
	}' "$0"
}

not_ok() {
	echo "FAIL: $(check_name): $*" >&2
	failed=$((failed + 1))
}

# expect_exit STATUS cmd...: runs cmd, stdout to $T/out, stderr to $T/err
expect_exit() {
	want=$1
	shift
	"$@" >"$T/out" 2>"$T/err"
	got=$?
	if [ "$got" -eq "$want" ]; then ok; else
		not_ok "'$*' exited $got, want $want; stderr: $(head -c 400 "$T/err")"
	fi
}

# expect_grep PATTERN FILE
expect_grep() {
	if grep -q -e "$1" "$2"; then ok; else
		not_ok "'$1' not found in $2: $(head -c 400 "$2")"
	fi
}

expect_no_grep() {
	if grep -q -e "$1" "$2"; then
		not_ok "'$1' unexpectedly found in $2"
	else ok; fi
}

# expect_lines N FILE: exactly N lines
expect_lines() {
	n=$(wc -l <"$2" | tr -d ' ')
	if [ "$n" -eq "$1" ]; then ok; else
		not_ok "$2 has $n lines, want $1: $(head -c 300 "$2")"
	fi
}

# measured FN: FN records real timings with a real profiler and checks
# them. On a shared machine a recording is sometimes disturbed for its
# whole length (one function slowed and not the other, as under a busy
# sibling hardware thread or a neighbour's memory traffic), which is a
# real change between the runs that the method rightly reports. When FN
# fails, its failures stay in the log and it records and checks again, up
# to three recordings in all; only the last attempt counts. A fault of the
# method fails all three.
measured() {
	m_failed=$failed m_pass=$pass m_try=1
	"$1"
	while [ "$failed" -gt "$m_failed" ] && [ "$m_try" -lt 3 ]; do
		m_try=$((m_try + 1))
		echo "note: the measurement above failed; recording it again ($m_try of 3)" >&2
		failed=$m_failed pass=$m_pass
		"$1"
	done
}

# llvm_bin TOOL...: L, the first llvm bin directory holding every TOOL
# (Debian keeps the cross tools in llvm's own: clang-cl, lld-link, ...);
# without one the test skips (exit 77).
llvm_bin() {
	L=
	for lb_d in "$(llvm-config --bindir 2>/dev/null)" $(ls -d /usr/lib/llvm-*/bin 2>/dev/null | sort -t- -k2 -n -r); do
		[ -n "$lb_d" ] || continue
		lb_ok=1
		for lb_t in "$@"; do [ -x "$lb_d/$lb_t" ] || lb_ok=0; done
		[ $lb_ok = 1 ] && L=$lb_d && return 0
	done
	echo "skip: needs $* in one llvm bin directory (Debian packages clang, lld, llvm)"
	exit 77
}

# have_corpus: the corpus is laid out (quietly true or false).
have_corpus() {
	[ -d "$PD_CORPUS/perf-script" ]
}

# corpus_skipped WHAT: the note for a check left out without the corpus.
corpus_skipped() {
	echo "note: no corpus at $PD_CORPUS: $1 skipped (scripts/fetch-corpus.sh lays it out; tests/README.md)"
}

# need_corpus: a test that is all corpus skips as a whole (exit 77).
need_corpus() {
	have_corpus && return 0
	corpus_skipped "this test"
	exit 77
}

# corpus_part WHAT: true when the corpus is here, else a note and false,
# for a part of a test: if corpus_part "the corpus files"; then ... fi
corpus_part() {
	have_corpus && return 0
	corpus_skipped "$1"
	return 1
}

# Portable stand-ins for GNU tools (macOS has shasum, and gtimeout only
# from Homebrew's coreutils).
sha256() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1" | cut -d' ' -f1
	else
		shasum -a 256 "$1" | cut -d' ' -f1
	fi
}

# with_timeout SECONDS CMD...: CMD, ended after SECONDS when a timeout
# command is at hand (the test then sees its exit status 124).
with_timeout() {
	secs=$1
	shift
	if command -v timeout >/dev/null 2>&1; then
		timeout "$secs" "$@"
	elif command -v gtimeout >/dev/null 2>&1; then
		gtimeout "$secs" "$@"
	else
		perl -e 'alarm shift; exec @ARGV' "$secs" "$@"
	fi
}

# chrome_dom URL: the DOM of a page after its scripts ran, in headless
# Chromium (found as CHROME; a test checks it is set), console messages
# in $T/console.
CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
chrome_dom() {
	with_timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu \
		--disable-background-networking --disable-component-update \
		--disable-sync --no-first-run --user-data-dir="$T/ud$$" \
		--enable-logging=stderr --v=0 --virtual-time-budget=5000 \
		--dump-dom "$1" 2>"$T/console"
}

# have_extra FILE: one corpus file is there (a corpus laid out before
# that file joined it lacks it); else a note, and false.
have_extra() {
	[ -f "$PD_CORPUS/$1" ] && return 0
	echo "note: $PD_CORPUS/$1 not here: its check skipped (scripts/fetch-corpus.sh lays the corpus out)"
	return 1
}

# history_db NAME: sets PERFDIFF_DB to a new, empty history: the file
# $T/NAME.db, or, when PD_TEST_PG names a PostgreSQL server (a URL without
# a database, as t0700 sets it), a new database on it: the same test then
# checks the other backend.
history_db() {
	if [ -n "${PD_TEST_PG:-}" ]; then
		hdb="pd_$(basename "$T" | tr -c 'a-zA-Z0-9\n' _ | tr 'A-Z' 'a-z')_$1"
		psql -X -q -d "$PD_TEST_PG" -c "CREATE DATABASE $hdb" >/dev/null ||
			{ not_ok "CREATE DATABASE $hdb"; exit 1; }
		export PERFDIFF_DB="$(printf '%s' "$PD_TEST_PG" | sed "s|/?|/$hdb?|")"
	else
		export PERFDIFF_DB="$T/$1.db"
	fi
}

# history_sql SQL: one query on $PERFDIFF_DB, rows as "a|b" lines.
history_sql() {
	case "$PERFDIFF_DB" in
	postgres*) psql -X -q -t -A -d "$PERFDIFF_DB" -c "$1" ;;
	*) sqlite3 "$PERFDIFF_DB" "$1" ;;
	esac
}

# runbook_bundle DIR SHA SCENARIO K: a bundle laid out as a runbook keeps
# one per build and scenario (dist/, inputs/, run_args.txt, notes.md,
# build_meta.json with the sha, rustc, flags, target and dataset hash but
# no cache field, profiles/perfview.speedscope.json and
# profiles/samply.profile.json), committed on day K of January 2026; K
# also sets the profiles' counts (parse: 100 + K samples of 1 ms in the
# PerfView export, 40 + K in samply's), so no two K give the same bytes.
runbook_bundle() {
	mkdir -p "$1/dist" "$1/inputs" "$1/profiles"
	printf 'app binary\n' >"$1/dist/app.exe"
	printf 'dataset %s\n' "$3" >"$1/inputs/data.bin"
	printf 'app.exe --input inputs/data.bin\n' >"$1/run_args.txt"
	printf '# Notes\nquiet machine\n' >"$1/notes.md"
	python3 - "$1" "$2" "$3" "$4" "$PD_ROOT/tests/tools/samply_make.py" <<'PY'
import hashlib, json, subprocess, sys
d, sha, scen, k, maker = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
data = open(d + "/inputs/data.bin", "rb").read()
json.dump({"git_sha": sha, "scenario": scen,
           "commit_date": "2026-01-%02dT12:00:00Z" % k,
           "rustc": "rustc 1.79.0 (129f3b996 2024-06-10)",
           "flags": "-C opt-level=3", "target": "x86_64-pc-windows-msvc",
           "dataset_hash": hashlib.sha256(data).hexdigest()},
          open(d + "/build_meta.json", "w"), indent=1)
samples = [[0, 1]] * (100 + k) + [[0, 2]] * 50 + [[0]] * 10
json.dump({"$schema": "https://www.speedscope.app/file-format-schema.json",
           "exporter": "speedscope@1.3.2",
           "shared": {"frames": [{"name": "main"}, {"name": "parse"},
                                 {"name": "hash"}]},
           "profiles": [{"type": "sampled", "name": "app.exe", "unit": "milliseconds",
                         "startValue": 0, "endValue": len(samples),
                         "samples": samples, "weights": [1] * len(samples)}]},
          open(d + "/profiles/perfview.speedscope.json", "w"))
spec = {"lib": {"name": "app.exe", "path": "/app.exe", "debugName": "app.pdb",
                "debugPath": "/app.pdb", "breakpadId": "", "codeId": "",
                "arch": "x86_64"},
        "frames": {"main": 4096, "parse": 8192, "hash": 12288},
        "stacks": [[["main", "parse"], 40 + k], [["main", "hash"], 20], [["main"], 5]]}
json.dump(spec, open(d + "/samply.spec", "w"))
subprocess.run([sys.executable, maker, d + "/samply.spec",
                d + "/profiles/samply.profile.json"], check=True)
PY
	rm -f "$1/samply.spec"
}

finish() {
	echo "$pass passed, $failed failed"
	[ "$failed" -eq 0 ]
}
