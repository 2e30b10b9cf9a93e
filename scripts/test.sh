#!/bin/sh
# Builds and runs the whole test suite: a warnings-as-errors release
# build, then an AddressSanitizer + UndefinedBehaviorSanitizer build. With
# PD_VALGRIND=1 the CLI tests also run under valgrind (leaks are errors).
# The sanitizer pass leaves out the seven tests that time real perf runs
# (t0200, t0205, t0206, t0208, t0330, t0600, t0605: 4 minutes, one at a
# time): what they check is the statistics on real measurements, which
# the release pass does, and the code they run is covered under the
# sanitizers by the other tests.
#
# Every pass runs even when an earlier one failed; the end prints one
# line a pass (passed, failed, skipped) and the exit status is non-zero
# when any pass failed or did not build.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JOBS:-2}
cd "$root"
summary=
status=0

# pass NAME LOG: notes the pass's counts from ctest's log
pass() {
	total=$(sed -n 's/.*tests passed, \([0-9]*\) tests failed out of \([0-9]*\).*/\2/p' "$2" | tail -n 1)
	failed=$(sed -n 's/.*tests passed, \([0-9]*\) tests failed out of .*/\1/p' "$2" | tail -n 1)
	skipped=$(grep -c '\*\*\*Skipped\|Not Run.*Disabled\| Skipped ' "$2")
	if [ -z "$total" ]; then
		summary="$summary
$1: did not run (see above)"
		status=1
		return
	fi
	summary="$summary
$1: $((total - failed - skipped)) passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ] || status=1
}

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

echo "== release build, -Werror"
if cmake -S . -B build -DPD_DEVELOPER=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null &&
	cmake --build build -j "$jobs"; then
	ctest --test-dir build --output-on-failure -j "$jobs" | tee "$logs/release"
	pass release "$logs/release"
else
	summary="$summary
release: the build failed"
	status=1
fi

echo "== ASan + UBSan build"
if cmake -S . -B build-asan -DPD_DEVELOPER=ON -DPD_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null &&
	cmake --build build-asan -j "$jobs"; then
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		ctest --test-dir build-asan --output-on-failure -j "$jobs" \
		-LE 'real-perf|package' | tee "$logs/asan"
	pass "ASan + UBSan" "$logs/asan"
else
	summary="$summary
ASan + UBSan: the build failed"
	status=1
fi

if [ "${PD_VALGRIND:-0}" = 1 ] && command -v valgrind >/dev/null; then
	echo "== CLI tests under valgrind"
	if [ -x build/perfdiff ]; then
		PD_WRAP="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect" \
			ctest --test-dir build --output-on-failure -j "$jobs" -R 'cli_t00|cli_t0207|cli_t0300|cli_t040[05]|cli_t041[5-7]|cli_t04[2-47]|cli_t06[12]0' |
			tee "$logs/valgrind"
		pass valgrind "$logs/valgrind"
	else
		summary="$summary
valgrind: no release build to run"
		status=1
	fi
fi

echo "== summary$summary"
exit "$status"
