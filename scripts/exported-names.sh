#!/bin/sh
# Fails when the library exports a symbol without the pd_ prefix
# (docs/style.md, "Names"): a name shared between files of a subsystem is
# still seen by whatever else the binary links.
#   scripts/exported-names.sh build/libpdcore.a
lib=${1:?usage: exported-names.sh LIBRARY}
command -v nm >/dev/null || { echo "skipped: no nm"; exit 77; }
# names beginning with __ are the compiler's and its runtimes' (ASan's
# __odr_asan.* beside each global), never ours
bad=$(nm -g --defined-only "$lib" | awk 'NF == 3 && $2 ~ /[TDBRC]/ { print $3 }' |
	grep -v '^pd_\|^PD_\|^__' | sort -u)
if [ -n "$bad" ]; then
	echo "exported without the pd_ prefix:"
	echo "$bad"
	exit 1
fi
echo "every exported name starts with pd_"
