#!/bin/sh
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each for
# SECONDS (default 60), seeded from fixtures/, the fuzz corpus kept in
# fixtures/fuzz/TARGET and, when it is here, the corpus of real profiles
# (found as the tests find it: PD_CORPUS, ../shared/corpus, .corpus; see
# tests/README.md, "The corpus"; scripts/fetch-corpus.sh lays it out).
# After each run the inputs that add coverage and are at most 2 KiB are
# merged into fixtures/fuzz/TARGET (16 new files a target at most; a file
# that was there before the run, committed seeds above all, is never
# removed): commit them, and the fuzz corpus grows. A file of the corpus of real profiles
# is a seed only and never merged: the tree keeps what the fuzzer made,
# not files of other repositories. history and bundle, which read no
# profile, start from their own seeds in fixtures/fuzz/TARGET alone.
# usage: scripts/fuzz.sh [SECONDS] [TARGET...]
#   SECONDS is per target: the default minute each is a smoke run; a full
#   run, outside the test suite, is `scripts/fuzz.sh 600` (ten minutes a
#   target, about three hours in all).
#   TARGET: perf_script, folded, perf_stat, speedscope, firefox, wpa,
#   instruments, xctrace, cpuprofile, pprof, dhat, callgrind, cachegrind,
#   etl (ETW traces), perfdata (perf.data read directly), sniff, objid (the symbol-file
#   header readers), meta (build_meta.json and the bundle reader),
#   bundle (a whole bundle folder: its name, file names, metadata and a
#   profile, read and ingested), sidecar (samply's .syms.json), packed (a
#   history's packed function rows) or history (a history file read by
#   runs, load and compare); default all.
# PD_FUZZ_RUNS=N stops each target after N inputs (libFuzzer's -runs),
# SECONDS still capping it: a campaign of 1 M inputs a target is
# `PD_FUZZ_RUNS=1000000 scripts/fuzz.sh 3600`.
# PD_FUZZ_FORK=N runs N workers in libFuzzer's fork mode, which goes on
# after a crash, a leak or a timeout and so finds more than one a run.
# Failures are counted from the files libFuzzer writes (crash-*, leak-*,
# timeout-*, oom-* in build-fuzz/artifacts/TARGET/), not from its summary,
# which in fork mode can say 0 crashes while artifacts were written; each
# is listed, and the exit status is 1 when there is any (or when a target
# exits with an error and no artifact).
set -eu
secs=${1:-60}
[ $# -gt 0 ] && shift
only=" $* "
fork=${PD_FUZZ_FORK:-0}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
all="perf_script perf_stat folded speedscope firefox wpa instruments xctrace
cpuprofile pprof dhat callgrind cachegrind etl perfdata sniff objid meta sidecar
packed history bundle"
selected() {
	[ "$only" = "  " ] || case $only in *" $1 "*) ;; *) return 1 ;; esac
}
targets=
for t in $all; do
	selected "$t" && targets="$targets fuzz_$t"
done
for w in $only; do
	case " $targets " in *" fuzz_$w "*) ;; *)
		echo "fuzz.sh: no target $w" >&2
		exit 2
	esac
done
# Without libelf: the ELF symbol-table reader fuzzed is perfdiff's own.
CC=clang cmake -S . -B build-fuzz -DPD_FUZZ=ON -DPD_SANITIZE=ON -DPD_WITH_LIBELF=OFF -DCMAKE_BUILD_TYPE=Debug >/dev/null
# shellcheck disable=SC2086
cmake --build build-fuzz -j2 --target $targets
if [ -n "${PD_CORPUS:-}" ]; then
	corpus=$PD_CORPUS
elif [ -n "${PD_EXTRA_CORPUS:-}" ]; then
	corpus=$PD_EXTRA_CORPUS
elif [ -d "$root/../shared/corpus" ]; then
	corpus=$root/../shared/corpus
else
	corpus=$root/.corpus
fi
# the blob ids of the corpus's seeds, inflated too, so that none is merged
ids=build-fuzz/corpus-ids
: >"$ids"
if [ -d "$corpus" ]; then
	find "$corpus" -type f ! -name MANIFEST.md -size -64k | while read -r c; do
		git hash-object "$c"
		if gzip -t "$c" 2>/dev/null; then
			gzip -dc "$c" | git hash-object --stdin
		fi
	done >"$ids"
else
	echo "fuzz.sh: no corpus at $corpus: seeds from fixtures/ alone (scripts/fetch-corpus.sh lays it out)" >&2
fi
failures=0
seed_objects() {
	printf 'int main(void) { return 0; }\n' >"$1/tiny.c"
	cc -o "$1/tiny.elf" "$1/tiny.c" 2>/dev/null || true
	L=$(ls -d /usr/lib/llvm-*/bin 2>/dev/null | sort -t- -k2 -n | tail -n 1)
	[ -n "$L" ] && [ -x "$L/lld-link" ] && [ -x "$L/ld64.lld" ] || return 0
	src=$root/fixtures/symbols/app.c
	"$L/clang-cl" --target=x86_64-pc-windows-msvc /c /O1 /Z7 "/Fo$1/app.obj" -- "$src" >/dev/null &&
		"$L/lld-link" /nologo /entry:main /nodefaultlib /debug "/pdb:$1/app.pdb" "/out:$1/app.exe" "$1/app.obj" || true
	"$L/clang" --target=arm64-apple-macos11 -O1 -g -c "$src" -o "$1/app.o" &&
		"$L/ld64.lld" -arch arm64 -platform_version macos 11.0 11.0 -e _main -o "$1/app.macho" "$1/app.o" || true
	rm -f "$1/tiny.c" "$1/app.obj" "$1/app.o"
}
for name in $all; do
	selected "$name" || continue
	seeds=build-fuzz/seeds-$name
	mkdir -p "$seeds"
	# a history and a bundle are not profiles: their own seeds only
	case $name in history | bundle) ;; *)
		find fixtures -type f -size -64k -exec cp {} "$seeds"/ \; 2>/dev/null || true
		if [ -d "$corpus" ]; then
			find "$corpus" -type f ! -name MANIFEST.md -size -64k -exec cp {} "$seeds"/ \;
		fi
	esac
	# the header readers start from real headers: a small ELF, and the
	# test program as PE + PDB and Mach-O when llvm's cross tools are here
	if [ "$name" = objid ]; then
		seed_objects "$seeds"
	fi
	# packed rows: a count byte, then rows of every tag (integers,
	# binary64, NULL), not profiles
	if [ "$name" = packed ]; then
		rm -f "$seeds"/*
		printf '\003\001\005\007\200\001\002\022\000\000\000\000\000\000\370\077\003\212\001\001\011' >"$seeds/rows3"
		printf '\000' >"$seeds/none"
	fi
	# perf.data: the recording kept in the tree, and a small one of
	# several processes when perf can record here
	if [ "$name" = perfdata ]; then
		cp fixtures/perfdata/mixed.data "$seeds"/
		perf record -q -F 499 -g -o "$seeds/procs.data" -- sh -c \
			'ls -l /usr/bin >/dev/null; sort /etc/passwd >/dev/null' \
			>/dev/null 2>&1 || true
	fi
	# gzipped seeds mutate into bad gzip, not bad protobuf: add them inflated
	for f in "$seeds"/*; do
		gzip -t "$f" 2>/dev/null && gzip -dc "$f" >"$f.raw" || true
	done
	# the corpus kept in the tree: what earlier runs found, small inputs
	kept=fixtures/fuzz/$name
	mkdir -p "$kept"
	cp "$kept"/* "$seeds"/ 2>/dev/null || true
	echo "== fuzz_$name for ${secs}s"
	max=65536
	[ "$name" = objid ] && max=131072 # a PDB's stream directory sits late
	[ "$name" = perfdata ] && max=131072 # the kept recording is 79 KB
	# this run's findings only (an earlier run's are replaced)
	art=build-fuzz/artifacts/$name
	rm -rf "$art" && mkdir -p "$art"
	set -- -max_total_time="$secs" -max_len=$max -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$art/"
	[ -n "${PD_FUZZ_RUNS:-}" ] && set -- "$@" -runs="$PD_FUZZ_RUNS"
	[ "$fork" -gt 0 ] && set -- "$@" -fork="$fork" -ignore_crashes=1 \
		-ignore_timeouts=1 -ignore_ooms=1
	st=0
	build-fuzz/tests/fuzz_$name "$@" "$seeds" >"build-fuzz/log-$name.txt" 2>&1 || st=$?
	tail -n 6 "build-fuzz/log-$name.txt"
	found=$(find "$art" -type f \( -name 'crash-*' -o -name 'leak-*' \
		-o -name 'timeout-*' -o -name 'oom-*' \) | sort)
	if [ -n "$found" ]; then
		echo "$found" | sed "s/^/FAILED: fuzz_$name: /"
		failures=$((failures + $(echo "$found" | wc -l)))
	elif [ "$st" -ne 0 ]; then
		echo "FAILED: fuzz_$name exited $st without an artifact (build-fuzz/log-$name.txt)"
		failures=$((failures + 1))
	fi
	# keep what adds coverage and is at most 2 KiB, up to 16 new files a
	# target: the corpus grows with the runs and stays small in git. Only
	# the files this merge adds are pruned: a file already in $kept (a
	# committed seed, made by hand or by scripts/fuzz-seeds.sh, or one
	# not yet committed) is never removed, whatever its size.
	small=build-fuzz/small-$name
	rm -rf "$small" && mkdir -p "$small"
	find "$seeds" -type f -size -2049c -exec cp {} "$small"/ \; 2>/dev/null || true
	for f in "$small"/*; do
		[ -f "$f" ] || continue
		if grep -qx "$(git hash-object "$f")" "$ids"; then
			rm -f "$f"
		fi
	done
	had=build-fuzz/had-$name
	ls -A "$kept" >"$had"
	build-fuzz/tests/fuzz_$name -merge=1 -max_len=2048 "$kept" "$small" >/dev/null 2>&1 || true
	for f in "$kept"/*; do
		[ -f "$f" ] && ! grep -qxF "${f##*/}" "$had" &&
			echo "$(wc -c <"$f") $f"
	done | sort -n | tail -n +17 | while read -r _ f; do
		git ls-files --error-unmatch "$f" >/dev/null 2>&1 || rm -f "$f"
	done
done
if [ "$failures" -gt 0 ]; then
	echo "$failures failing inputs: build-fuzz/artifacts/; once fixed each belongs in fixtures/regress/ with a line in t0050" >&2
	exit 1
fi
echo "no crash, leak, timeout or out-of-memory input"
