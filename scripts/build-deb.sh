#!/bin/sh
# Builds the Debian package from this source tree: the tree is copied to
# a temporary folder, scripts/debian/ becomes its debian/, and
# dpkg-buildpackage makes a binary package, left in OUTDIR.
# usage: scripts/build-deb.sh [OUTDIR]   (default: build-deb/ at the top,
# which git ignores as it does every build folder)
# Needs dpkg-dev, debhelper and the Build-Depends of scripts/debian/control
# (the build dependencies of the README's apt line, without the test
# tools); `dpkg-checkbuilddeps` in the copy names any that are missing.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build-deb}
mkdir -p "$out"
out=$(cd "$out" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/perfdiff-deb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
src=$tmp/perfdiff
mkdir "$src"
# The files of the checkout (changes not yet committed included), never
# its build folders; a tree without git is copied whole but for those.
if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git -C "$root" ls-files -z --cached --others --exclude-standard |
		(cd "$root" && tar --null -T - -cf -) |
		tar -xf - -C "$src"
else
	(cd "$root" && tar -cf - --exclude='./build*' .) |
		tar -xf - -C "$src"
fi
rm -rf "$src/debian"
cp -R "$root/scripts/debian" "$src/debian"
# The package's version is the project's (CMakeLists.txt).
want=$(sed -n 's/^project(perfdiff VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
have=$(cd "$src" && dpkg-parsechangelog -S Version)
if [ "$want" != "$have" ]; then
	echo "build-deb.sh: scripts/debian/changelog says $have, CMakeLists.txt $want" >&2
	exit 2
fi
(cd "$src" && dpkg-buildpackage -b -us -uc -j"${JOBS:-2}")
# dpkg-buildpackage writes beside the source folder
find "$tmp" -maxdepth 1 -name 'perfdiff*.deb' -exec cp {} "$out/" \;
ls "$out"/perfdiff_*.deb
