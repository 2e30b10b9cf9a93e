#!/bin/sh
# Cross-compiles perfdiff.exe for 64-bit Windows with mingw-w64:
#   scripts/build-windows.sh OUT
# First the libraries perfdiff needs, built for mingw from Debian's own
# source packages (apt-get source: the .orig tarball with Debian's
# patches) into a prefix under the cache folder (PD_WIN_CACHE, default
# .cache/windows in the tree, ignored by git), then perfdiff itself with
# scripts/windows/mingw-w64.cmake, linked statically: OUT/perfdiff.exe
# needs no DLL beside it. Versions: those of the Debian release the
# machine's deb-src lines name (Debian 12: zlib 1.2.13, sqlite3 3.40.1,
# yajl 2.1.0, cjson 1.7.15, libcsv 3.0.3, expat 2.5.0, bzip2 1.0.8,
# libxlsxwriter 1.1.4, nettle 3.8.1); OUT/versions.txt lists them.
# Left out: libpq (the PostgreSQL history) and libelf (perfdiff's own ELF
# reader stands in).
# Needs: mingw-w64, cmake, make, tclsh (SQLite's amalgamation), dpkg-dev
# and a deb-src line in the apt sources.
set -eu
[ $# -eq 1 ] || { echo "usage: $0 OUT" >&2; exit 2; }
ROOT=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$1"
OUT=$(cd "$1" && pwd)
CACHE=${PD_WIN_CACHE:-$ROOT/.cache/windows}
HOST=x86_64-w64-mingw32
CC=$HOST-gcc
AR=$HOST-ar
PREFIX=$CACHE/prefix
SRC=$CACHE/src
JOBS=${PD_JOBS:-2}
export PD_WIN_PREFIX="$PREFIX"
# pkg-config finds the prefix's libraries only, never the host's
export PKG_CONFIG_LIBDIR="$PREFIX/lib/pkgconfig" PKG_CONFIG_PATH=
mkdir -p "$SRC" "$PREFIX/include" "$PREFIX/lib/pkgconfig"
command -v "$CC" >/dev/null ||
	{ echo "$0: $CC not found (apt-get install mingw-w64)" >&2; exit 2; }

# fetch_source PKG: downloads PKG's source package into the current
# folder. A mirror may list a version (a security update, say) whose
# files it no longer serves: every version the sources list is tried,
# newest first, before giving up.
fetch_source()
{
	apt-get source --download-only "$1" >&2 2>/dev/null && return 0
	for v in $(apt-cache showsrc "$1" 2>/dev/null |
		sed -n 's/^Version: //p' | sort -u -r -V); do
		rm -f "$1"_*
		apt-get source --download-only "$1=$v" >&2 && return 0
	done
	echo "$0: no source package of $1 could be downloaded" >&2
	return 1
}

# unpack PKG: the Debian source package, patched, in $SRC/PKG; prints
# its folder
unpack()
{
	if [ ! -f "$SRC/$1.dir" ]; then
		(cd "$SRC" && ls "$1"_*.dsc >/dev/null 2>&1 ||
			fetch_source "$1")
		dsc=$(ls "$SRC/$1"_*.dsc | head -n 1)
		rm -rf "${SRC:?}/$1"
		dpkg-source -x "$dsc" "$SRC/$1" >&2
		basename "$dsc" .dsc | sed 's/_/ /' >"$SRC/$1.dir"
	fi
	echo "$SRC/$1"
}

# pc NAME VERSION CFLAGS LIBS: a pkg-config file for the static library
pc()
{
	printf 'prefix=%s\nName: %s\nDescription: %s\nVersion: %s\nCflags: %s\nLibs: %s\n' \
		"$PREFIX" "$1" "$1" "$2" "$3" "$4" \
		>"$PREFIX/lib/pkgconfig/$1.pc"
}

# archive LIB FILES...: compiles FILES (in the current folder) into
# $PREFIX/lib/libLIB.a
archive()
{
	lib=$1
	shift
	rm -f ./*.o
	for f in "$@"; do
		$CC -O2 $DEFS -c "$f" -o "$(basename "$f" .c).o"
	done
	rm -f "$PREFIX/lib/lib$lib.a"
	$AR rcs "$PREFIX/lib/lib$lib.a" ./*.o
}

cmake_dep()
{
	d=$1
	shift
	rm -rf "$d/build-win"
	cmake -S "$d" -B "$d/build-win" \
		-DCMAKE_TOOLCHAIN_FILE="$ROOT/scripts/windows/mingw-w64.cmake" \
		-DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$PREFIX" \
		-DBUILD_SHARED_LIBS=OFF "$@" >&2
	cmake --build "$d/build-win" -j "$JOBS" >&2
	cmake --install "$d/build-win" >&2
}

dep_zlib()
{
	d=$(unpack zlib)
	cd "$d" && DEFS= archive z adler32.c compress.c crc32.c deflate.c \
		gzclose.c gzlib.c gzread.c gzwrite.c infback.c inffast.c \
		inflate.c inftrees.c trees.c uncompr.c zutil.c
	cp zlib.h zconf.h "$PREFIX/include/"
	pc zlib 1.2.13 "-I$PREFIX/include" "-L$PREFIX/lib -lz"
}

dep_bzip2()
{
	d=$(unpack bzip2)
	cd "$d" && DEFS= archive bz2 blocksort.c huffman.c crctable.c \
		randtable.c compress.c decompress.c bzlib.c
	cp bzlib.h "$PREFIX/include/"
}

dep_sqlite3()
{
	d=$(unpack sqlite3)
	# the amalgamation is made by the host's tools (tclsh, lemon)
	if [ ! -f "$d/build-host/sqlite3.c" ]; then
		mkdir -p "$d/build-host"
		(cd "$d/build-host" && ../configure >&2 &&
			make -j "$JOBS" sqlite3.c >&2)
	fi
	cd "$d/build-host" && DEFS="-DSQLITE_THREADSAFE=1" archive sqlite3 sqlite3.c
	cp sqlite3.h sqlite3ext.h "$PREFIX/include/"
}

dep_yajl()
{
	d=$(unpack yajl)
	mkdir -p "$PREFIX/include/yajl"
	cp "$d"/src/api/*.h "$PREFIX/include/yajl/"
	sed -e 's/\${YAJL_MAJOR}/2/; s/\${YAJL_MINOR}/1/; s/\${YAJL_MICRO}/0/' \
		"$d/src/api/yajl_version.h.cmake" \
		>"$PREFIX/include/yajl/yajl_version.h"
	cd "$d/src" && DEFS="-I$PREFIX/include" archive yajl yajl.c \
		yajl_alloc.c yajl_buf.c yajl_encode.c yajl_gen.c yajl_lex.c \
		yajl_parser.c yajl_tree.c yajl_version.c
	pc yajl 2.1.0 "-I$PREFIX/include/yajl" "-L$PREFIX/lib -lyajl"
}

dep_cjson()
{
	d=$(unpack cjson)
	mkdir -p "$PREFIX/include/cjson"
	cp "$d/cJSON.h" "$PREFIX/include/cjson/"
	cd "$d" && DEFS= archive cjson cJSON.c
	pc libcjson 1.7.15 "-I$PREFIX/include/cjson" "-L$PREFIX/lib -lcjson"
}

dep_libcsv()
{
	d=$(unpack libcsv)
	cp "$d/csv.h" "$PREFIX/include/"
	cd "$d" && DEFS= archive csv libcsv.c
}

dep_expat()
{
	d=$(unpack expat)
	[ -d "$d/expat" ] && d=$d/expat
	# the library's three files with configure's answers for Windows:
	# Debian's patches test XML_DTD == 1, which CMake's config leaves empty
	printf '#define %s\n' "BYTEORDER 1234" "XML_CONTEXT_BYTES 1024" \
		"XML_DTD 1" "XML_NS 1" "HAVE_MEMMOVE 1" >"$d/lib/expat_config.h"
	cp "$d/lib/expat.h" "$d/lib/expat_external.h" "$PREFIX/include/"
	cd "$d/lib" && DEFS="-DHAVE_EXPAT_CONFIG_H -DXML_STATIC -I." \
		archive expat xmlparse.c xmlrole.c xmltok.c
	pc expat 2.5.0 "-I$PREFIX/include -DXML_STATIC" "-L$PREFIX/lib -lexpat"
}

dep_libxlsxwriter()
{
	d=$(unpack libxlsxwriter)
	cmake_dep "$d" -DUSE_SYSTEM_MINIZIP=OFF -DBUILD_TESTS=OFF \
		-DBUILD_EXAMPLES=OFF -DZLIB_ROOT="$PREFIX"
	pc xlsxwriter 1.1.4 "-I$PREFIX/include" "-L$PREFIX/lib -lxlsxwriter -lz"
}

dep_nettle()
{
	d=$(unpack nettle)
	# only the hashes are used: no hogweed, so no GMP
	rm -rf "$d/build-win"
	mkdir -p "$d/build-win"
	(cd "$d/build-win" && ../configure --host=$HOST --prefix="$PREFIX" \
		--disable-shared --disable-public-key --disable-assembler \
		--disable-documentation --disable-openssl >&2 &&
		make -j "$JOBS" >&2 && make install >&2)
	pc nettle 3.8.1 "-I$PREFIX/include" "-L$PREFIX/lib -lnettle"
}

for dep in zlib bzip2 sqlite3 yajl cjson libcsv expat libxlsxwriter nettle; do
	[ -f "$PREFIX/.done-$dep" ] && continue
	echo "building $dep for $HOST" >&2
	(dep_$dep)
	touch "$PREFIX/.done-$dep"
done
cat "$SRC"/*.dir >"$OUT/versions.txt"

cmake -S "$ROOT" -B "$OUT/build" \
	-DCMAKE_TOOLCHAIN_FILE="$ROOT/scripts/windows/mingw-w64.cmake" \
	-DCMAKE_BUILD_TYPE=Release -DPD_TESTS=OFF -DPD_WITH_LIBELF=OFF \
	-DPD_WITH_LIBPQ=OFF -DPD_DEVELOPER=${PD_DEVELOPER:-ON} \
	-DCMAKE_PREFIX_PATH="$PREFIX" \
	-DCMAKE_EXE_LINKER_FLAGS="-static -static-libgcc" >&2
cmake --build "$OUT/build" -j "$JOBS" >&2
cp "$OUT/build/perfdiff.exe" "$OUT/perfdiff.exe"
echo "$OUT/perfdiff.exe"
