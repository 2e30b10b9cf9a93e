#!/bin/sh
# One source for the command line: the option tables of docs/cli.md and
# the man page docs/perfdiff.1 are what src/cmd/options.c makes (run
# scripts/cli-docs.sh after changing an option); every option a command
# parses is in its help, its completion and its docs table; the bash
# completion completes.
. "$(dirname "$0")/lib.sh"
mkdir -p "$T/docs"
cp "$PD_ROOT/docs/cli.md" "$T/docs/cli.md"
sh "$PD_ROOT/scripts/cli-docs.sh" "$PERFDIFF" "$T/docs" >"$T/out" 2>"$T/err"
if cmp -s "$PD_ROOT/docs/cli.md" "$T/docs/cli.md"; then ok; else
	not_ok "docs/cli.md differs from the option table (run scripts/cli-docs.sh): $(diff "$PD_ROOT/docs/cli.md" "$T/docs/cli.md" | head -c 400)"
fi
# the man page's header carries the version: compare the rest
if diff "$PD_ROOT/docs/perfdiff.1" "$T/docs/perfdiff.1" | grep -v '^[<>] \.TH \|^---$\|^[0-9c,]*$' | grep -q .; then
	not_ok "docs/perfdiff.1 differs from the option table (run scripts/cli-docs.sh)"
else ok; fi
# every command's options: help, completion and docs agree
for cmd in diff check show convert compare ingest runs bundle trend culprit peek; do
	pd help "$cmd" >"$T/help.$cmd"
	longs=$(grep -o -- '--[a-z][a-z-]*' "$T/help.$cmd" | sort -u)
	for o in $longs; do
		case $o in --db|--help|--format|--output) ;; esac
		# help prose may name other commands' options: check the table rows
		if grep -q -- "^  \(-[a-z], \)\?$o\b" "$T/help.$cmd"; then
			grep -q -- "\`\(-[a-z], \)\?$o[ \`]" "$PD_ROOT/docs/cli.md" || not_ok "$cmd $o: not in docs/cli.md"
		fi
	done
	n=$(grep -c -- '^  \(-[a-z], \)\?--' "$T/help.$cmd")
	[ "$n" -gt 0 ] && ok || not_ok "$cmd: no options in help"
done
# --from's other names: the format table's, every one listed and taken
expect_exit 0 pd help --markdown diff
expect_grep "also \`samply\`, .*\`etw\`, \`etl.zip\`)" "$T/out"
for a in collapsed perf_script gecko etw pb stat; do
	expect_exit 2 pd show --from "$a" "$T/none"
	expect_no_grep "not a format\|unknown format" "$T/err"
done
expect_exit 0 pd help --markdown trend
expect_grep '^| `--alert-after REV` |' "$T/out"
expect_exit 2 pd help --markdown nosuch
expect_exit 0 pd completion bash
cp "$T/out" "$T/comp.bash"
if command -v bash >/dev/null; then
	out=$(bash -c '. "$1"; COMP_WORDS=(perfdiff trend --alert); COMP_CWORD=2; _perfdiff; echo "${COMPREPLY[@]}"
		COMP_WORDS=(perfdiff diff --thres); COMP_CWORD=2; _perfdiff; echo "${COMPREPLY[@]}"
		COMP_WORDS=(perfdiff con); COMP_CWORD=1; _perfdiff; echo "${COMPREPLY[@]}"' _ "$T/comp.bash")
	[ "$out" = "--alert-after
--threshold
convert" ] && ok || not_ok "bash completion: $out"
	# values: the formats each command writes, input formats, choices
	out=$(bash -c '. "$1"; COMP_WORDS=(perfdiff diff -f ""); COMP_CWORD=3; _perfdiff; echo "${COMPREPLY[@]}"
		COMP_WORDS=(perfdiff trend --format ""); COMP_CWORD=3; _perfdiff; echo "${COMPREPLY[@]}"
		COMP_WORDS=(perfdiff show --from perf); COMP_CWORD=3; _perfdiff; echo "${COMPREPLY[@]}"
		COMP_WORDS=(perfdiff a.txt --weight w); COMP_CWORD=3; _perfdiff; echo "${COMPREPLY[@]}"
		COMP_WORDS=(perfdiff ingest --cache c); COMP_CWORD=3; _perfdiff; echo "${COMPREPLY[@]}"' _ "$T/comp.bash")
	[ "$out" = "text md json folded html xlsx
text md json html xlsx
perf-stat perf-script
wall
cold" ] && ok || not_ok "bash value completion: $out"
fi
# scenarios and tools: the stored ones, of the history --db names
if command -v bash >/dev/null; then
	for k in "parse warm 1" "render cold 2"; do
		set -- $k
		pd bundle init "$T/b-$1" --scenario "$1" --cache "$2" \
			--sha "$(printf "$3%.0s" $(seq 40))" >/dev/null 2>&1 &&
			cp "$PD_ROOT/fixtures/demo/base.perf.txt.gz" "$T/b-$1/profiles/" &&
			pd ingest --db "$T/h.db" "$T/b-$1" >/dev/null 2>&1 ||
			not_ok "a history of two scenarios ($1)"
	done
	out=$(PATH="$(dirname "$PERFDIFF"):$PATH" bash -c '. "$1"
		COMP_WORDS=(perfdiff trend --db "$2" --scenario ""); COMP_CWORD=5; _perfdiff; echo "${COMPREPLY[@]}"
		COMP_WORDS=(perfdiff compare --db "$2" --scenario r); COMP_CWORD=5; _perfdiff; echo "${COMPREPLY[@]}"
		COMP_WORDS=(perfdiff trend --db "$2" --tool ""); COMP_CWORD=5; _perfdiff; echo "${COMPREPLY[@]}"
		COMP_WORDS=(perfdiff trend --db "$2.none" --scenario ""); COMP_CWORD=5; _perfdiff; echo "${COMPREPLY[@]}"' \
		_ "$T/comp.bash" "$T/h.db")
	# (no history: nothing, the last line, which $(...) drops)
	[ "$out" = "parse render
render
perf" ] && ok || not_ok "bash completion of stored scenarios and tools: $out"
fi
# the man page: literals in bold, not markdown's backticks; examples
expect_exit 0 pd help --man
[ "$(grep -v '^\.\\"' "$T/out" | grep -c '`')" = 0 ] && ok || not_ok "backticks in the man page"
expect_grep '^\.SH EXAMPLES$' "$T/out"
expect_grep '^\.SH SEE ALSO$' "$T/out"
expect_grep 'as \\fBgit rev\\-list \\-\\-topo\\-order HEAD\\fR does' "$T/out"
expect_exit 0 pd completion fish
expect_grep "__fish_seen_subcommand_from trend' -l alert-after -r" "$T/out"
expect_grep "__fish_seen_subcommand_from diff' -l weight -r -x -a 'cpu wall both'" "$T/out"
expect_grep "__fish_seen_subcommand_from trend' -l scenario -r -x -a '(__fish_perfdiff_runs 3)'" "$T/out"
expect_grep "^function __fish_perfdiff_runs$" "$T/out"
expect_exit 0 pd completion zsh
expect_grep '^#compdef perfdiff' "$T/out"
expect_exit 2 pd completion tcsh
# options a command does not take are refused with its help named
expect_exit 2 pd runs --alert-after x
expect_grep "unknown option --alert-after" "$T/err"
expect_exit 2 pd show --threshold 5 x
finish
