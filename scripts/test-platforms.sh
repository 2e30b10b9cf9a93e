#!/bin/sh
# What can be checked on Linux of the builds other platforms make
# (docs/architecture.md, "Platforms"); .ci/run runs it after the suite.
#  - without libelf, as on macOS: perfdiff's own ELF reader; the whole
#    suite but the four tests that time real perf runs (the release pass
#    of scripts/test.sh runs those);
#  - with clang and -Werror, as on macOS: it builds and the unit tests pass.
# The default build is already strict C11 with POSIX.1-2008 and no GNU
# extensions (-std=c11 -D_POSIX_C_SOURCE=200809L), warnings as errors.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JOBS:-2}
cd "$root"

echo "== without libelf (perfdiff's own ELF reader)"
cmake -S . -B build-noelf -DPD_DEVELOPER=ON -DPD_WITH_LIBELF=OFF >/dev/null
cmake --build build-noelf -j "$jobs"
if ldd build-noelf/perfdiff 2>/dev/null | grep -q libelf; then
	echo "build-noelf/perfdiff links libelf" >&2
	exit 1
fi
ctest --test-dir build-noelf --output-on-failure -j "$jobs" \
	-E 'cli_t0200-real-perf|cli_t0205-verdicts-real|cli_t0206-bursty-real|cli_t0330-history-real|cli_t0600-bisect-real'

if command -v clang >/dev/null; then
	echo "== clang, -Werror"
	CC=clang cmake -S . -B build-clang -DPD_DEVELOPER=ON >/dev/null
	cmake --build build-clang -j "$jobs"
	ctest --test-dir build-clang --output-on-failure -j "$jobs" -R '^unit_'
else
	echo "clang not installed: the clang build skipped"
fi
