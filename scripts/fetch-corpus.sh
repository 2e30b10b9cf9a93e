#!/bin/sh
# Lays out the corpus of real profiles the tests read (tests/README.md,
# "The corpus") from the public repositories that hold them, at the
# commits scripts/corpus.tsv pins. The repository keeps none of them.
#
#   scripts/fetch-corpus.sh [DIR]           lay the corpus out in DIR
#   scripts/fetch-corpus.sh --verify [DIR]  check DIR against the table
#   scripts/fetch-corpus.sh --verify-present [DIR]
#                                           the same, for the files DIR has
#
# DIR defaults to .corpus in the source tree (ignored by git), where the
# tests look when there is no ../shared/corpus beside the tree. Each
# file is its repository's blob, byte for byte (the .gz and .bz2 files
# are compressed upstream, as they are kept there): one shallow fetch of
# each commit without its blobs, then each file's blob alone, written as
# DIR/FOLDER/NAME and kept only when its git blob id (git hash-object) is
# the one the table pins; a file that differs is refused and removed. A
# file already there with the right id is kept, so a run after a failure
# fetches only what is missing. Needs git and access to the repositories.
# --verify fetches nothing: every file of the table must be in DIR with
# its id, and every file in DIR (but a MANIFEST.md) in the table.
# --verify-present is --verify for a corpus laid out before the table
# grew (a shared copy kept elsewhere): a file of the table that DIR lacks
# is counted and named, not a failure; a file DIR has must still be right,
# and a DIR with none of them fails.
#
# Exit status: 0 when every file is there and verified, 1 when one is
# not, 2 for a bad table or usage.
#
# The table is scripts/corpus.tsv (written from the corpus's MANIFEST.md
# by scripts/corpus-table.sh) followed by scripts/corpus-more.tsv (files
# the MANIFEST does not list, kept by hand in the same form).
# PD_CORPUS_TABLE: another table, alone (lines of FOLDER/NAME, repository URL,
# commit, path, blob, by tabs; # starts a comment).
# PD_CORPUS_GIT_BASE=BASE: https://github.com/OWNER/NAME is read from the
# git repository BASE/OWNER/NAME (or BASE/OWNER/NAME.git) instead, as
# file:// (a mirror, or the tests' own repository; one that does not
# allow the blob filter, uploadpack.allowFilter, sends whole commits).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
joined=
if [ -n "${PD_CORPUS_TABLE:-}" ]; then
	table=$PD_CORPUS_TABLE
else
	joined=$(mktemp "${TMPDIR:-/tmp}/corpus-table.XXXXXX") || exit 2
	trap 'rm -f "$joined"' EXIT
	cat "$root/scripts/corpus.tsv" "$root/scripts/corpus-more.tsv" >"$joined" || exit 2
	table=$joined
fi
verify=0
present=0
case ${1:-} in
--verify)
	verify=1
	shift
	;;
--verify-present)
	verify=1
	present=1
	shift
	;;
esac
case ${1:-} in
-*)
	echo "usage: scripts/fetch-corpus.sh [--verify | --verify-present] [DIR]" >&2
	exit 2
	;;
esac
[ $# -le 1 ] || {
	echo "usage: scripts/fetch-corpus.sh [--verify | --verify-present] [DIR]" >&2
	exit 2
}
dir=${1:-$root/.corpus}
[ -f "$table" ] || {
	echo "fetch-corpus: $table: no such table" >&2
	exit 2
}
tab=$(printf '\t')

# Every line of the table is checked before anything is fetched: a name
# stays inside DIR, a commit and a blob are full ids.
rows=0
bad=0
while IFS=$tab read -r file url commit path blob extra; do
	case $file in '' | '#'*) continue ;; esac
	rows=$((rows + 1))
	ok=1
	case $file in
	*/*/* | /* | */ | .* | */.* | *[!A-Za-z0-9._/-]*) ok=0 ;;
	*/*) ;;
	*) ok=0 ;;
	esac
	[ -n "$url" ] && [ -n "$path" ] && [ -z "$extra" ] || ok=0
	case $commit in *[!0-9a-f]*) ok=0 ;; esac
	case $blob in *[!0-9a-f]*) ok=0 ;; esac
	[ ${#commit} -eq 40 ] && [ ${#blob} -eq 40 ] || ok=0
	if [ $ok = 0 ]; then
		echo "fetch-corpus: $table: a bad line for '$file'" >&2
		bad=1
	fi
done <"$table"
[ $bad = 0 ] && [ $rows -gt 0 ] || {
	[ $rows -gt 0 ] || echo "fetch-corpus: $table: no files" >&2
	exit 2
}

if [ $verify = 1 ]; then
	[ -d "$dir" ] || {
		echo "fetch-corpus: $dir: no such folder" >&2
		exit 1
	}
	good=0
	failed=0
	absent=0
	names=$(mktemp "${TMPDIR:-/tmp}/corpus-names.XXXXXX")
	trap 'rm -f "$names" "$names.s" "$names.x" ${joined:+"$joined"}' EXIT
	while IFS=$tab read -r file url commit path blob extra; do
		case $file in '' | '#'*) continue ;; esac
		echo "$file" >>"$names"
		if [ ! -f "$dir/$file" ] && [ $present = 1 ]; then
			echo "fetch-corpus: $file: not in $dir (not checked)" >&2
			absent=$((absent + 1))
		elif [ ! -f "$dir/$file" ]; then
			echo "fetch-corpus: $file: missing" >&2
			failed=$((failed + 1))
		elif [ "$(git hash-object "$dir/$file")" != "$blob" ]; then
			echo "fetch-corpus: $file: blob $(git hash-object "$dir/$file"), the table pins $blob" >&2
			failed=$((failed + 1))
		else
			good=$((good + 1))
		fi
	done <"$table"
	# and nothing in DIR that the table does not know
	sort "$names" >"$names.s"
	(cd "$dir" && find . -type f ! -path ./MANIFEST.md) | sed 's|^\./||' |
		sort | comm -23 - "$names.s" >"$names.x"
	while read -r file; do
		echo "fetch-corpus: $file: in $dir, not in the table" >&2
		failed=$((failed + 1))
	done <"$names.x"
	if [ $present = 1 ]; then
		echo "$good files verified, $failed failed, $absent not there ($dir)"
		# a folder with none of the table's files is not a corpus
		if [ $good = 0 ]; then
			echo "fetch-corpus: $dir: none of the table's files" >&2
			exit 1
		fi
	else
		echo "$good files verified, $failed failed ($dir)"
	fi
	[ $failed = 0 ]
	exit
fi

command -v git >/dev/null || {
	echo "fetch-corpus: git not found" >&2
	exit 1
}
mkdir -p "$dir" || exit 1
work=$(mktemp -d "${TMPDIR:-/tmp}/corpus-git.XXXXXX") || exit 1
trap 'rm -rf "$work" ${joined:+"$joined"}' EXIT

# repo URL: the bare repository in $work that fetches from URL (made on
# first use), on stdout.
repo() {
	r=$work/$(printf '%s' "$1" | tr -c 'A-Za-z0-9._-' _)
	if [ ! -d "$r" ]; then
		src=$1
		if [ -n "${PD_CORPUS_GIT_BASE:-}" ]; then
			case $1 in
			https://github.com/*/*)
				src=$PD_CORPUS_GIT_BASE/${1#https://github.com/}
				[ -d "$src" ] || src=$src.git
				src=file://$src
				;;
			esac
		fi
		git init -q --bare "$r" &&
			git --git-dir="$r" remote add origin "$src" || return 1
	fi
	echo "$r"
}

fetched=0
kept=0
failed=0
while IFS=$tab read -r file url commit path blob extra; do
	case $file in '' | '#'*) continue ;; esac
	out=$dir/$file
	if [ -f "$out" ] && [ "$(git hash-object "$out")" = "$blob" ]; then
		kept=$((kept + 1))
		continue
	fi
	r=$(repo "$url") || {
		failed=$((failed + 1))
		continue
	}
	# one shallow fetch of the commit, trees only (asking the repository
	# for a missing commit would fetch its whole history); each blob
	# comes from the same remote when it is read
	if [ ! -e "$r.$commit" ] && [ ! -e "$r.$commit.failed" ]; then
		if git --git-dir="$r" fetch -q --depth 1 --filter=blob:none origin "$commit"; then
			: >"$r.$commit"
		else
			: >"$r.$commit.failed"
		fi
	fi
	if [ -e "$r.$commit.failed" ]; then
		echo "fetch-corpus: $file: cannot fetch $commit from $url" >&2
		failed=$((failed + 1))
		continue
	fi
	mkdir -p "${out%/*}"
	rm -f "$out"
	if git --git-dir="$r" cat-file blob "$commit:$path" >"$out.part" &&
		[ "$(git hash-object "$out.part")" = "$blob" ]; then
		mv "$out.part" "$out"
		fetched=$((fetched + 1))
	else
		echo "fetch-corpus: $file: $url $commit:$path is not blob $blob: refused" >&2
		rm -f "$out.part"
		failed=$((failed + 1))
	fi
done <"$table"
echo "$fetched files fetched, $kept already there, $failed failed ($dir)"
[ $failed = 0 ]
