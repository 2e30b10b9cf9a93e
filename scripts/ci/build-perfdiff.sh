#!/bin/sh
# build-perfdiff.sh [SRC [BUILD]]: prints the path of the perfdiff a CI job
# runs: $PERFDIFF_BIN when it is set, else one built from the source tree
# SRC (default: the checkout holding this script) in BUILD (default
# $RUNNER_TEMP/perfdiff-build, else $TMPDIR). On Debian and Ubuntu the
# build's packages are installed first when some are missing, unless
# PERFDIFF_INSTALL_DEPS is false. Standard output is the path alone; the
# build's messages go to standard error. Used by the GitHub Action
# (scripts/github-action) and the GitLab template (scripts/gitlab):
# docs/ci.md, "Pull-request comments".
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=${1:-$here/../..}
build=${2:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}/perfdiff-build}

if [ -n "${PERFDIFF_BIN:-}" ]; then
	if ! command -v "$PERFDIFF_BIN" >/dev/null 2>&1; then
		echo "perfdiff: $PERFDIFF_BIN: no such program" >&2
		exit 2
	fi
	printf '%s\n' "$PERFDIFF_BIN"
	exit 0
fi
if [ ! -f "$src/CMakeLists.txt" ] || [ ! -d "$src/src" ]; then
	echo "perfdiff: $src is no perfdiff source tree" >&2
	exit 2
fi

# The libraries CMakeLists.txt requires (libcsv has no pkg-config file).
have_deps() {
	command -v cmake >/dev/null 2>&1 && command -v pkg-config >/dev/null 2>&1 &&
		command -v cc >/dev/null 2>&1 &&
		pkg-config --exists yajl libcjson nettle expat xlsxwriter libpq sqlite3 zlib &&
		[ -f /usr/include/csv.h ] && [ -f /usr/include/bzlib.h ]
}

case ${PERFDIFF_INSTALL_DEPS:-true} in
false | no | 0) ;;
*)
	if ! have_deps && command -v apt-get >/dev/null 2>&1; then
		sudo=
		[ "$(id -u)" = 0 ] || sudo=sudo
		pkgs="build-essential pkg-config libyajl-dev libcjson-dev nettle-dev
			libexpat1-dev libxlsxwriter-dev libpq-dev libsqlite3-dev
			zlib1g-dev libbz2-dev libcsv-dev libelf-dev"
		# GitHub's runners bring a newer cmake of their own
		command -v cmake >/dev/null 2>&1 || pkgs="$pkgs cmake"
		echo "perfdiff: installing the build's packages" >&2
		$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
		# shellcheck disable=SC2086
		$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends $pkgs >&2
	fi
	;;
esac

jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
cmake -S "$src" -B "$build" -DPD_TESTS=OFF >&2
cmake --build "$build" -j "$jobs" >&2
printf '%s\n' "$build/perfdiff"
