#!/bin/sh
# compare --base-of REF CAND (docs/cli.md, "compare"): the baseline is the
# merge base of REF and CAND when it is stored, else its nearest stored
# first-parent ancestor, and the baseline's provenance says which and
# why; with nothing stored among the ancestors it is one error line. The
# repository: c1..c6 on main, "feature" off c4, "side" off c3, "early"
# off c1; stored: c2, c4, c6 and the tip of each branch.
. "$(dirname "$0")/lib.sh"
command -v git >/dev/null || { echo "git not installed: skipped"; exit 77; }
cd "$T" || exit 1
history_db g
R=$T/repo
mkdir "$R" && git -C "$R" init -q -b main
day=0
commit() { # commit MESSAGE
	day=$((day + 1))
	d=$(printf '2026-05-%02dT12:00:00+00:00' $day)
	GIT_COMMITTER_DATE=$d GIT_AUTHOR_DATE=$d \
		git -C "$R" -c user.name=t -c user.email=t@e commit -q --allow-empty -m "$1"
}
for i in 1 2 3 4 5 6; do
	commit "c$i"
	[ $i = 1 ] && git -C "$R" branch early
	[ $i = 3 ] && git -C "$R" branch side
	[ $i = 4 ] && git -C "$R" branch feature
done
for b in feature side early; do
	git -C "$R" checkout -q "$b"
	commit "${b}1"
	[ $b = feature ] && commit feature2
done
git -C "$R" checkout -q main
c() { git -C "$R" rev-parse "main~$((6 - $1))"; }
# bundle DIR SHA PARSE: three runs of scenario syn, warm
bundle() {
	mkdir -p "$1/profiles"
	printf '{"git_sha": "%s", "scenario": "syn", "cache": "warm"}\n' "$2" >"$1/build_meta.json"
	for r in 1 2 3; do
		j=$(( (r - 2) * 3 ))
		printf 'main;parse %s\nmain;read %s\nmain;other %s\n' \
			$(($3 + j)) $((2000 - j)) $((500 + j)) >"$1/profiles/run.$r.folded"
	done
}
bundle "$T/c2" "$(c 2)" 1000
bundle "$T/c4" "$(c 4)" 1000
bundle "$T/c6" "$(c 6)" 1000
bundle "$T/feature" "$(git -C "$R" rev-parse feature)" 1300
bundle "$T/side" "$(git -C "$R" rev-parse side)" 1000
bundle "$T/early" "$(git -C "$R" rev-parse early)" 1000
expect_exit 0 pd ingest --repo "$R" "$T/c2" "$T/c4" "$T/c6" "$T/feature" "$T/side" "$T/early"

# base BASE-SHA CAND-SHA WHY: the compare JSON in $T/out
base() {
	if python3 - "$T/out" "$1" "$2" "$3" <<'PY'; then ok; else not_ok "base $1 $2"; fi
import json, sys
d = json.load(open(sys.argv[1]))
b, c = d["baseline"]["provenance"], d["candidate"]["provenance"]
assert b.startswith("commit %s," % sys.argv[2]), b
assert b.endswith("; " + sys.argv[4]), b
assert c.startswith("commit %s," % sys.argv[3]), c
PY
}
# The merge base of main and feature, c4, is stored: it is the baseline.
expect_exit 1 pd compare --base-of main feature --repo "$R" --scenario syn -f json
base "$(c 4)" "$(git -C "$R" rev-parse feature)" "the merge base of main and feature"
# That of main and side, c3, is not: c2, one commit back, is.
short() { printf '%.7s' "$1"; }
expect_exit 0 pd compare --base-of main side --repo "$R" --scenario syn -f json
base "$(c 2)" "$(git -C "$R" rev-parse side)" \
	"merge base $(short "$(c 3)") of main and side has no runs; nearest stored ancestor $(short "$(c 2)"), 1 commit back"
# the text report says it too, and the cache state given is kept
expect_exit 0 pd compare --base-of main side --repo "$R" --scenario syn --cache warm
expect_grep "nearest stored ancestor $(short "$(c 2)"), 1 commit back" "$T/out"
# A candidate on main itself: its merge base with main is itself.
expect_exit 0 pd compare --base-of main main --repo "$R" --scenario syn -f json
base "$(c 6)" "$(c 6)" "the merge base of main and main"
# Nothing stored at c1 or before: one line, exit 2.
expect_exit 2 pd compare --base-of main early --repo "$R" --scenario syn
expect_grep "^perfdiff: error: $R: neither merge base $(short "$(c 1)") of main and early nor any of its 0 first-parent ancestors has runs of syn$" "$T/err"
expect_lines 1 "$T/err"
expect_exit 2 pd compare --base-of main side --repo "$R" --scenario syn --cache cold
expect_grep "nor any of its 2 first-parent ancestors has runs of syn/cold$" "$T/err"
# Its shape: --repo and exactly one operand; revisions git must know.
expect_exit 2 pd compare --base-of main feature --scenario syn
expect_grep "compare --base-of REF wants --repo DIR and one operand" "$T/err"
expect_exit 2 pd compare --base-of main main feature --repo "$R" --scenario syn
expect_grep "(got 2)" "$T/err"
expect_exit 2 pd compare --base-of nosuch feature --repo "$R" --scenario syn
expect_grep "^perfdiff: error: $R: 'nosuch' is not a commit there$" "$T/err"
expect_exit 2 pd compare --base-of main nosuch --repo "$R" --scenario syn
expect_grep "'nosuch' is not a commit there$" "$T/err"
finish
