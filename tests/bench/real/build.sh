#!/bin/sh
# Builds the programs of the real-program benchmark from their Debian
# source packages (tests/bench/real/README.md): per program the unchanged
# build a, its identical rebuild rb (compiled again from a clean tree) and
# the planted builds of WORKDIR/PROGRAM/counts.json (calibrate.py), each
# with symbols and frame
# pointers. A planted build adds a fixed count of dependent additions
# (PD_PLANT, plant.h) at the entry of one real function of the program.
#
# usage: tests/bench/real/build.sh WORKDIR [PROGRAM ...]
#        tests/bench/real/build.sh WORKDIR --one PROGRAM NAME FLAGS
#   WORKDIR/src: the unpacked sources (fetched with apt-get source when
#   missing; needs a deb-src entry), WORKDIR/PROGRAM/bin: the builds.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$1
shift
mkdir -p "$work/src"
work=$(cd "$work" && pwd)
CFLAGS_PD="-O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer"
jobs=${JOBS:-2}

# program -> Debian source package, and the folder it unpacks to
pkg() {
	case $1 in
	bzip2) echo bzip2 ;; lua) echo lua5.4 ;; gzip) echo gzip ;;
	mawk) echo mawk ;; xz) echo xz-utils ;; zstd) echo libzstd ;;
	flac) echo flac ;; lame) echo lame ;; expat) echo expat ;;
	yaml) echo libyaml ;; sqlite) echo sqlite3 ;;
	*) echo "unknown program $1" >&2 && exit 2 ;;
	esac
}

fetch() { # program: prints the unpacked source folder
	p=$(pkg "$1")
	d=$(find "$work/src" -maxdepth 1 -type d -name "$p-[0-9]*" | head -1)
	[ -n "$d" ] || d=$(find "$work/src" -maxdepth 1 -type d \
		-iname "*$1*[0-9]*" | head -1)
	if [ -z "$d" ]; then
		(cd "$work/src" && apt-get source -qq "$p" >/dev/null 2>&1) ||
			# a version the mirror lists but whose files are gone
			# (a security update's 404): the others it lists
			for v in $(apt-cache showsrc "$p" |
				sed -n 's/^Version: //p'); do
				(cd "$work/src" && apt-get source -qq "$p=$v" \
					>/dev/null 2>&1) && break
			done ||
			(cd "$work/src" && apt-get source -qq --download-only \
				"$p" >/dev/null 2>&1) || true
		for t in "$work/src/${p}_"*.orig.tar.*; do
			case $t in *.asc) continue ;; esac
			[ -f "$t" ] && (cd "$work/src" && tar xf "$t")
		done
		d=$(find "$work/src" -maxdepth 1 -type d -name "$p-[0-9]*" | head -1)
		[ -n "$d" ] || d=$(find "$work/src" -maxdepth 1 -type d \
			-iname "*$1*[0-9]*" | head -1)
	fi
	[ -n "$d" ] || { echo "build.sh: no source for $1 ($p)" >&2; exit 2; }
	echo "$d"
}

# The tree a program's builds are made in: the source copied once, with
# the plant sites of programs.py inserted, and configured.
prepare() { # program source
	t=$work/$1/tree
	[ -f "$t/.pd-ready" ] && return 0
	rm -rf "$t"
	mkdir -p "$work/$1"
	cp -a "$2" "$t"
	python3 "$here/programs.py" plant "$1" "$t"
	(cd "$t" && configure_"$1") >"$work/$1/configure.log" 2>&1 ||
		{ echo "build.sh: configuring $1 failed: $work/$1/configure.log" >&2; exit 2; }
	touch "$t/.pd-ready"
}

# Each program: configure_P (in the tree, once) and make_P FLAGS (a clean
# build with those compiler flags; prints the binary's path).
inc() { echo "-include $here/plant.h"; }

configure_bzip2() { :; }
make_bzip2() {
	rm -f bzip2 ./*.o
	# shellcheck disable=SC2086
	gcc $1 -D_FILE_OFFSET_BITS=64 -o bzip2 blocksort.c huffman.c \
		crctable.c randtable.c compress.c decompress.c bzlib.c bzip2.c
	echo bzip2
}

configure_lua() {
	mkdir -p pd-inc
	echo '#define DEB_HOST_MULTIARCH "x86_64-linux-gnu"' \
		>pd-inc/lua5.4-deb-multiarch.h
}
make_lua() {
	rm -f lua
	# shellcheck disable=SC2086,SC2046
	gcc $1 -Ipd-inc -DLUA_COMPAT_5_3 -DLUA_USE_LINUX -o lua \
		$(ls src/*.c | grep -v luac.c) -lm -ldl
	echo lua
}

configure_gzip() { ./configure --quiet --disable-silent-rules; }
make_gzip() {
	make -s clean >/dev/null 2>&1 || true
	# the library, then the program (the manual would need makeinfo)
	make -s -j"$jobs" CFLAGS="$1" -C lib >/dev/null 2>&1
	make -s CFLAGS="$1" version.h >/dev/null 2>&1
	make -s -j"$jobs" CFLAGS="$1" gzip >/dev/null 2>&1
	echo gzip
}

configure_mawk() { ./configure --quiet; }
make_mawk() {
	make -s clean >/dev/null 2>&1 || true
	make -s -j"$jobs" CFLAGS="$1" mawk >/dev/null 2>&1
	echo mawk
}

configure_xz() {
	./configure --quiet --disable-shared --enable-static --disable-nls \
		--disable-doc --disable-scripts --disable-lzmainfo \
		--disable-lzmadec --disable-xzdec
}
make_xz() {
	make -s clean >/dev/null 2>&1 || true
	make -s -j"$jobs" CFLAGS="$1" >/dev/null
	echo src/xz/xz
}

configure_zstd() { :; }
make_zstd() {
	make -s -C programs clean >/dev/null 2>&1 || true
	make -s -C lib clean >/dev/null 2>&1 || true
	make -s -j"$jobs" -C programs zstd MOREFLAGS="$1" \
		ZSTD_LEGACY_SUPPORT=0 HAVE_ZLIB=0 HAVE_LZMA=0 HAVE_LZ4=0 \
		ZSTD_NO_ASM=1 >/dev/null
	echo programs/zstd
}

configure_flac() {
	./configure --quiet --disable-shared --enable-static --disable-ogg \
		--disable-doxygen-docs --disable-xmms-plugin --disable-cpplibs \
		--disable-asm-optimizations --disable-avx
}
make_flac() {
	make -s clean >/dev/null 2>&1 || true
	make -s -j"$jobs" CFLAGS="$1" >/dev/null
	echo src/flac/flac
}

configure_lame() {
	./configure --quiet --disable-shared --enable-static \
		--disable-frontend-gtk --disable-decoder --disable-nasm
}
make_lame() {
	make -s clean >/dev/null 2>&1 || true
	make -s -j"$jobs" CFLAGS="$1" >/dev/null
	echo frontend/lame
}

configure_expat() {
	# Debian's security patches test "#if XML_DTD == 1", which needs the
	# macro to have a value; the stock template defines it empty
	sed -i 's/^#cmakedefine XML_DTD$/#cmakedefine XML_DTD 1/' \
		expat/expat_config.h.cmake
	cmake -S expat -B pd-build -DCMAKE_BUILD_TYPE=None \
		-DEXPAT_SHARED_LIBS=OFF -DEXPAT_BUILD_TESTS=OFF \
		-DEXPAT_BUILD_EXAMPLES=OFF -DEXPAT_BUILD_DOCS=OFF >/dev/null
}
make_expat() {
	cmake --build pd-build --target clean >/dev/null
	CFLAGS="$1" cmake -S expat -B pd-build -DCMAKE_C_FLAGS="$1" >/dev/null
	cmake --build pd-build -j"$jobs" --target xmlwf >/dev/null
	echo pd-build/xmlwf/xmlwf
}

configure_yaml() { :; }
make_yaml() {
	rm -f run-parser
	# shellcheck disable=SC2086
	gcc $1 -Iinclude -DYAML_VERSION_MAJOR=0 -DYAML_VERSION_MINOR=2 \
		-DYAML_VERSION_PATCH=5 -DYAML_VERSION_STRING='"0.2.5"' \
		-o run-parser src/*.c tests/run-parser.c
	echo run-parser
}

configure_sqlite() {
	./configure --quiet --disable-shared --enable-static --disable-tcl \
		--disable-readline --disable-editline --disable-load-extension \
		--enable-threadsafe=no
}
make_sqlite() {
	rm -f sqlite3 sqlite3.o shell.o
	make -s -j"$jobs" sqlite3.c shell.c >/dev/null 2>&1
	# shellcheck disable=SC2086
	gcc $1 -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION \
		-o sqlite3 shell.c sqlite3.c -lm
	echo sqlite3
}

build_one() { # program variant flags
	t=$work/$1/tree
	out=$work/$1/bin/$2
	[ -x "$out" ] && return 0
	mkdir -p "$work/$1/bin"
	b=$(cd "$t" && make_"$1" "$CFLAGS_PD $(inc) $3") ||
		{ echo "build.sh: building $1 $2 failed" >&2; exit 2; }
	cp "$t/$b" "$out.tmp"
	mv "$out.tmp" "$out"
	echo "built $1/$2" >&2
}

# A shape of tests/bench/shapes: one file, its plant by -D flags.
build_shape() { # program variant flags
	out=$work/$1/bin/$2
	[ -x "$out" ] && return 0
	mkdir -p "$work/$1/bin"
	s=$(python3 "$here/programs.py" shape "$1")
	# shellcheck disable=SC2086
	cc $CFLAGS_PD -pthread $3 -o "$out.tmp" "$here/../shapes/$s.c"
	mv "$out.tmp" "$out"
	echo "built $1/$2" >&2
}
case " $(python3 "$here/programs.py" shapes) " in
*" ${1:-} "*)
	for p in "$@"; do
		build_shape "$p" a ""
		build_shape "$p" rb ""
		python3 "$here/programs.py" variants "$p" "$work" |
			while IFS='	' read -r v flags; do
				build_shape "$p" "$v" "$flags"
			done
	done
	exit 0
	;;
esac

if [ "${1:-}" = --one ]; then # --one PROGRAM NAME FLAGS: one build
	prepare "$2" "$(fetch "$2")"
	build_one "$2" "$3" "$4"
	exit 0
fi
progs=${*:-$(python3 "$here/programs.py" list)}
for p in $progs; do
	src=$(fetch "$p")
	prepare "$p" "$src"
	build_one "$p" a ""
	build_one "$p" rb ""
	python3 "$here/programs.py" variants "$p" "$work" |
		while IFS='	' read -r v flags; do
			build_one "$p" "$v" "$flags"
		done
done
