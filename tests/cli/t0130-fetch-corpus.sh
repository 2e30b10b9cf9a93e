#!/bin/sh
# scripts/fetch-corpus.sh lays the corpus out from the repositories and
# commits of its table and keeps a file only when its git blob id is the
# pinned one. Here the repository is made on the spot and stands for
# GitHub (PD_CORPUS_GIT_BASE): no network. Then the project's table
# against the corpus, when the corpus is here.
. "$(dirname "$0")/lib.sh"
command -v git >/dev/null || {
	echo "git not found: skipped"
	exit 77
}
F=$PD_ROOT/scripts/fetch-corpus.sh
g() {
	git -c user.name=perfdiff -c user.email=perfdiff@example.org \
		-c init.defaultBranch=main "$@"
}
src=$T/base/someone/profiles
g init -q "$src"
mkdir -p "$src/data/deep"
printf 'main;parse 3\nmain;sort 1\n' >"$src/data/a.folded"
printf 'main;parse 7\n' | gzip -n >"$src/data/deep/b.folded.gz"
g -C "$src" add . && g -C "$src" commit -q -m one
pinned=$(git -C "$src" rev-parse HEAD)
# the pinned commit is not the tip, and the tip changed the file
printf 'main;parse 5\n' >"$src/data/a.folded"
g -C "$src" commit -q -a -m two
tip=$(git -C "$src" rev-parse HEAD)
git -C "$src" config uploadpack.allowFilter true
blob() { git -C "$src" rev-parse "$1:$2"; }
url=https://github.com/someone/profiles
row() { printf '%s\t%s\t%s\t%s\t%s\n' "$@"; }
row folded/a.folded "$url" "$pinned" data/a.folded "$(blob "$pinned" data/a.folded)" >"$T/table"
row folded/b.folded.gz "$url" "$pinned" data/deep/b.folded.gz "$(blob "$pinned" data/deep/b.folded.gz)" >>"$T/table"
export PD_CORPUS_GIT_BASE="$T/base"

# laid out, byte for byte the blobs of the pinned commit
PD_CORPUS_TABLE=$T/table expect_exit 0 sh "$F" "$T/c"
expect_grep "^2 files fetched, 0 already there, 0 failed" "$T/out"
git -C "$src" cat-file blob "$pinned:data/a.folded" >"$T/want-a"
cmp -s "$T/want-a" "$T/c/folded/a.folded" && ok || not_ok "a.folded is not the pinned blob"
git -C "$src" cat-file blob "$pinned:data/deep/b.folded.gz" >"$T/want-b"
cmp -s "$T/want-b" "$T/c/folded/b.folded.gz" && ok || not_ok "b.folded.gz is not the pinned blob"
[ ! -e "$T/c/folded/a.folded.part" ] && ok || not_ok "a .part file left"
# and perfdiff reads what it laid out
expect_exit 0 pd show "$T/c/folded/b.folded.gz"
PD_CORPUS_TABLE=$T/table expect_exit 0 sh "$F" --verify "$T/c"
expect_grep "^2 files verified, 0 failed" "$T/out"

# a second run keeps what is there; a damaged file is seen and fetched again
PD_CORPUS_TABLE=$T/table expect_exit 0 sh "$F" "$T/c"
expect_grep "^0 files fetched, 2 already there" "$T/out"
printf 'main;parse 4\n' >"$T/c/folded/a.folded"
PD_CORPUS_TABLE=$T/table expect_exit 1 sh "$F" --verify "$T/c"
expect_grep "folded/a.folded: blob .*, the table pins" "$T/err"
PD_CORPUS_TABLE=$T/table expect_exit 0 sh "$F" "$T/c"
expect_grep "^1 files fetched, 1 already there" "$T/out"
cmp -s "$T/want-a" "$T/c/folded/a.folded" && ok || not_ok "a damaged file was not fetched again"
# a file the table does not know fails --verify (a MANIFEST.md does not)
: >"$T/c/MANIFEST.md"
: >"$T/c/folded/stray.txt"
PD_CORPUS_TABLE=$T/table expect_exit 1 sh "$F" --verify "$T/c"
expect_grep "folded/stray.txt: in .*, not in the table" "$T/err"
expect_lines 1 "$T/err"
rm "$T/c/folded/stray.txt"
# a file of the table that the folder lacks: a failure for --verify, a
# count for --verify-present (a shared corpus laid out before the table
# grew), which still checks the files that are there
mv "$T/c/folded/b.folded.gz" "$T/b.keep"
PD_CORPUS_TABLE=$T/table expect_exit 1 sh "$F" --verify "$T/c"
expect_grep "folded/b.folded.gz: missing" "$T/err"
PD_CORPUS_TABLE=$T/table expect_exit 0 sh "$F" --verify-present "$T/c"
expect_grep "^1 files verified, 0 failed, 1 not there" "$T/out"
expect_grep "folded/b.folded.gz: not in .* (not checked)" "$T/err"
printf 'main;parse 4\n' >"$T/c/folded/a.folded"
PD_CORPUS_TABLE=$T/table expect_exit 1 sh "$F" --verify-present "$T/c"
expect_grep "folded/a.folded: blob .*, the table pins" "$T/err"
PD_CORPUS_TABLE=$T/table expect_exit 0 sh "$F" "$T/c"
# a folder with none of the table's files is no corpus, even so
mkdir -p "$T/empty"
PD_CORPUS_TABLE=$T/table expect_exit 1 sh "$F" --verify-present "$T/empty"
expect_grep "none of the table's files" "$T/err"
# a temporary folder with a space: the project's own table is joined
# there, and only that file is removed after (this folder is no corpus)
mkdir -p "$T/tmp x"
echo keep >"$T/tmp"
TMPDIR="$T/tmp x" expect_exit 1 sh "$F" --verify-present "$T/c"
[ -f "$T/tmp" ] && [ -z "$(ls "$T/tmp x")" ] && ok ||
	not_ok "TMPDIR with a space: $(ls "$T") / $(ls "$T/tmp x")"

# A pinned id that the file at that commit does not have (here the tip's
# content): refused, exit 1, and no file, not even one that was there.
row folded/a.folded "$url" "$pinned" data/a.folded "$(blob "$tip" data/a.folded)" >"$T/wrong"
PD_CORPUS_TABLE=$T/wrong expect_exit 1 sh "$F" "$T/c"
expect_grep "folded/a.folded: .* is not blob $(blob "$tip" data/a.folded): refused" "$T/err"
[ ! -e "$T/c/folded/a.folded" ] && ok || not_ok "a refused file is left"
[ ! -e "$T/c/folded/a.folded.part" ] && ok || not_ok "a refused .part file is left"
# a path the commit lacks, and a commit the repository lacks
row folded/n.folded "$url" "$pinned" data/none.folded "$(blob "$pinned" data/a.folded)" >"$T/wrong"
PD_CORPUS_TABLE=$T/wrong expect_exit 1 sh "$F" "$T/c"
[ ! -e "$T/c/folded/n.folded" ] && ok || not_ok "a file with no blob is left"
row folded/a.folded "$url" 0123456789abcdef0123456789abcdef01234567 data/a.folded "$(blob "$pinned" data/a.folded)" >"$T/wrong"
PD_CORPUS_TABLE=$T/wrong expect_exit 1 sh "$F" "$T/d"
expect_grep "cannot fetch 0123456789abcdef0123456789abcdef01234567" "$T/err"

# A table line naming a file outside DIR, or without a full id, is
# refused before anything is fetched (exit 2).
for bad in "../a.folded" "/tmp/a.folded" "a.folded" "folded/../../a" "folded/.hidden"; do
	row "$bad" "$url" "$pinned" data/a.folded "$(blob "$pinned" data/a.folded)" >"$T/bad"
	PD_CORPUS_TABLE=$T/bad expect_exit 2 sh "$F" "$T/e"
done
row folded/a.folded "$url" "${pinned%??????}" data/a.folded "$(blob "$pinned" data/a.folded)" >"$T/bad"
PD_CORPUS_TABLE=$T/bad expect_exit 2 sh "$F" "$T/e"
[ ! -e "$T/e" ] && ok || not_ok "a bad table wrote something"
expect_exit 2 sh "$F" --nope

# The project's table against the corpus: every file there with the id
# pinned, nothing in the corpus that the table lacks. The corpus may be a
# shared copy older than the table's last rows: those are counted, and the
# tests that read them skip.
if corpus_part "the table against the corpus"; then
	expect_exit 0 sh "$F" --verify-present "$PD_CORPUS"
	expect_grep "files verified, 0 failed" "$T/out"
fi
finish
