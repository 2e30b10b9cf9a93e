#!/bin/sh
# What can be checked on Linux of the builds other platforms make
# (docs/architecture.md, "Platforms"); .ci/run runs it after the suite.
#  - a Release build (CMake's -O3 -DNDEBUG) with -Werror, built, not
#    tested: gcc finds more -Wmaybe-uninitialized at -O3 than at the -O2
#    of the suite's RelWithDebInfo build, and a user's release build must
#    be as warning-free as ours. 21 s of CPU, under a minute on 2 cores;
#  - without libelf, as on macOS: perfdiff's own ELF reader; the whole
#    suite but the six tests that time real perf runs (the release pass
#    of scripts/test.sh runs those);
#  - with clang and -Werror, as on macOS, and with clang's AddressSanitizer
#    and UndefinedBehaviorSanitizer (pointer-overflow and
#    float-cast-overflow included): the whole suite but the same six
#    tests, the fuzz corpus replay (t0120) among them. Measured here on
#    2 cores shared with other work (load about 14): the build 1.6
#    minutes; the tests 4.2 minutes of CPU (201 s user, 50 s system),
#    which took 14.5 to 21.5 minutes of wall time under that load and
#    come to about 2.5 minutes on two idle cores, as the gcc sanitizer
#    pass of the same tests does.
#  - with PD_TSAN=1, ThreadSanitizer on the threaded perf script reader
#    (its unit test and t0207): 1.8 minutes to build, 20 s of tests
#    (measured under the same load; 24 s of CPU in all).
# The default build is already strict C11 with POSIX.1-2008 and no GNU
# extensions (-std=c11 -D_POSIX_C_SOURCE=200809L), warnings as errors.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JOBS:-2}
cd "$root"

echo "== Release build, -Werror (built only)"
cmake -S . -B build-release -DPD_DEVELOPER=ON -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-release -j "$jobs"

echo "== without libelf (perfdiff's own ELF reader)"
cmake -S . -B build-noelf -DPD_DEVELOPER=ON -DPD_WITH_LIBELF=OFF >/dev/null
cmake --build build-noelf -j "$jobs"
if ldd build-noelf/perfdiff 2>/dev/null | grep -q libelf; then
	echo "build-noelf/perfdiff links libelf" >&2
	exit 1
fi
ctest --test-dir build-noelf --output-on-failure -j "$jobs" \
	-LE 'real-perf|package'

if command -v clang >/dev/null; then
	# clang's UBSan checks what gcc's does not (an offset added to a null
	# pointer, among others) and its ASan finds other leaks: the suite
	# again, built by clang with -Werror, ASan and UBSan, halting on the
	# first report. This is also the pass that replays the fuzz corpus
	# (t0120) with the sanitizers the fuzzer runs with.
	echo "== clang, -Werror, ASan + UBSan (pointer-overflow, float-cast-overflow)"
	CC=clang cmake -S . -B build-clang -DPD_DEVELOPER=ON -DPD_SANITIZE=ON \
		-DCMAKE_BUILD_TYPE=Debug >/dev/null
	cmake --build build-clang -j "$jobs"
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		ctest --test-dir build-clang --output-on-failure -j "$jobs" \
		-LE 'real-perf|package'
else
	echo "clang not installed: the clang build skipped"
fi

# ThreadSanitizer on the one reader that runs on threads of its own, the
# perf script text read in pieces (src/import/perf/perf_split.c): its unit
# test and t0207. Opt-in (PD_TSAN=1): its own build takes longer than
# the tests, and the code on threads changes seldom.
if [ "${PD_TSAN:-0}" = 1 ] && command -v clang >/dev/null; then
	echo "== clang, ThreadSanitizer: the threaded perf script reader"
	CC=clang cmake -S . -B build-tsan -DPD_DEVELOPER=ON \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS=-fsanitize=thread \
		-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread >/dev/null
	cmake --build build-tsan -j "$jobs" --target perfdiff test_split
	TSAN_OPTIONS=halt_on_error=1:exitcode=66 \
		ctest --test-dir build-tsan --output-on-failure -R '^(unit_split|cli_t0207-perf-threads)$'
fi
