#!/bin/sh
# Writes the table scripts/fetch-corpus.sh reads (scripts/corpus.tsv) from
# the corpus's MANIFEST.md and the corpus beside it:
#
#   scripts/corpus-table.sh [CORPUS] >scripts/corpus.tsv
#
# CORPUS defaults to ../shared/corpus beside the source tree. Every row of
# the MANIFEST's per-folder tables gives a line: the file as FOLDER/NAME,
# its repository's URL, the commit, the path there and the full git blob
# id, which is the file's own (git hash-object) and must begin with the
# abbreviated id the MANIFEST pins; a file that does not match, or is
# missing, stops the script. Run it when the corpus grows, then
# `scripts/fetch-corpus.sh --verify` on the corpus. Files the MANIFEST
# does not list are kept by hand in scripts/corpus-more.tsv.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=${1:-$root/../shared/corpus}
manifest=$corpus/MANIFEST.md
[ -f "$manifest" ] || {
	echo "corpus-table: $manifest: no such file" >&2
	exit 2
}
tab=$(printf '\t')
rows=$(mktemp "${TMPDIR:-/tmp}/corpus-table.XXXXXX")
trap 'rm -f "$rows"' EXIT

# The MANIFEST's tables, one per "## FOLDER/ ..." section, name their
# columns in the header row (file, repository or repo, path in repository
# or path, commit, blob); cells are in backquotes. Rows come out as
# FOLDER/NAME, OWNER/NAME, commit, path, abbreviated blob.
awk -F'|' -v OFS='\t' '
function cell(i,   s) {
	s = $(i + 1)
	gsub(/^[ \t]+|[ \t]+$/, "", s)
	gsub(/`/, "", s)
	return s
}
/^## / {
	folder = ""
	if ($0 ~ /^## [A-Za-z0-9._-]+\//) {
		folder = substr($0, 4)
		sub(/\/.*/, "", folder)
	}
	header = 0
	next
}
folder != "" && /^\|/ {
	if (!header) {
		split("", col)
		for (i = 1; i < NF - 1; i++) {
			name = cell(i)
			if (name == "repository") name = "repo"
			if (name == "path in repository") name = "path"
			col[name] = i
		}
		header = NF
		if (!("file" in col) || !("repo" in col) || !("path" in col) ||
		    !("commit" in col) || !("blob" in col)) {
			print "corpus-table: section " folder ": no file, repository, path, commit or blob column" > "/dev/stderr"
			bad = 1
		}
		next
	}
	if ($0 ~ /^\|[-| :]+\|?[ \t]*$/)
		next
	if (NF != header) {
		print "corpus-table: " folder ": a row of " NF - 2 " cells, not " header - 2 ": " $0 > "/dev/stderr"
		bad = 1
		next
	}
	print folder "/" cell(col["file"]), cell(col["repo"]), cell(col["commit"]), cell(col["path"]), cell(col["blob"])
}
END { exit bad }
' "$manifest" >"$rows"

echo "# The corpus of real profiles (tests/README.md, \"The corpus\"): each file,"
echo "# its repository, the commit, its path there and its git blob id."
echo "# Written by scripts/corpus-table.sh; read by scripts/fetch-corpus.sh."
echo "# file${tab}repository${tab}commit${tab}path${tab}blob"
status=0
while IFS=$tab read -r file repo commit path short; do
	f=$corpus/$file
	if [ ! -f "$f" ]; then
		echo "corpus-table: $f: listed in the MANIFEST, not in the corpus" >&2
		status=1
		continue
	fi
	blob=$(git hash-object "$f")
	case $blob in
	"$short"*) ;;
	*)
		echo "corpus-table: $file: blob $blob, the MANIFEST pins $short" >&2
		status=1
		continue
		;;
	esac
	printf '%s\t%s\t%s\t%s\t%s\n' "$file" "https://github.com/$repo" "$commit" "$path" "$blob"
done <"$rows"
exit $status
