#!/bin/sh
# Builds and runs the whole test suite twice: a warnings-as-errors release
# build, then an AddressSanitizer + UndefinedBehaviorSanitizer build. With
# PD_VALGRIND=1 the CLI tests also run under valgrind (leaks are errors).
# The sanitizer pass leaves out the seven tests that time real perf runs
# (t0200, t0205, t0206, t0208, t0330, t0600, t0605: 4 minutes, one at a
# time): what they check is the statistics on real measurements, which
# the release pass does, and the code they run is covered under the
# sanitizers by the other tests.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JOBS:-2}
cd "$root"

echo "== release build, -Werror"
cmake -S . -B build -DPD_DEVELOPER=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure -j "$jobs"

echo "== ASan + UBSan build"
cmake -S . -B build-asan -DPD_DEVELOPER=ON -DPD_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-asan -j "$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	ctest --test-dir build-asan --output-on-failure -j "$jobs" \
	-LE 'real-perf|package'

if [ "${PD_VALGRIND:-0}" = 1 ] && command -v valgrind >/dev/null; then
	echo "== CLI tests under valgrind"
	PD_WRAP="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect" \
		ctest --test-dir build --output-on-failure -j "$jobs" -R 'cli_t00|cli_t0207|cli_t0300|cli_t040[05]|cli_t041[5-7]|cli_t04[2-47]|cli_t06[12]0'
fi
