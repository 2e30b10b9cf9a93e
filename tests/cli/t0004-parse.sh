#!/bin/sh
# The one parser every command reads its arguments with (docs/cli.md,
# "Commands"): the ways an option may be written, values checked as they
# are read, output formats and their other names alike in every command,
# and what is refused before any input is read.
. "$(dirname "$0")/lib.sh"
D=$PD_ROOT/fixtures/demo
A=$D/base.perf.txt.gz
B=$D/cand.perf.txt.gz

# --name=value, a unique prefix, a short option's value attached
expect_exit 0 pd diff --threshold=50 --min-imp 30 -fjson "$A" "$B"
expect_grep "\"threshold_pct\":.50," "$T/out"
expect_grep "\"min_impact_pct\":.30," "$T/out"
# options after operands, and "--" before an operand that looks like one
cp "$A" "$T/-a.gz"
expect_exit 0 pd show -f json -- "$T/-a.gz"
expect_exit 0 pd show "$A" --top 1 -f json
# a prefix of two options, a flag given a value, a value missing
expect_exit 2 pd diff --thr 5 "$A" "$B"
expect_grep "option --thr is ambiguous: --thread --threshold" "$T/err"
expect_lines 1 "$T/err"
expect_exit 2 pd diff --treat=yes "$A" "$B"
expect_grep "option --treat takes no value" "$T/err"
expect_exit 2 pd show "$A" -f
expect_grep "option -f needs a value" "$T/err"
# one short option the command does not take, in a group
expect_exit 2 pd diff --=3 "$A" "$B"
expect_grep "unknown option --=3 (perfdiff help diff)" "$T/err"
expect_exit 2 pd runs -vx
expect_grep "unknown option -x (perfdiff help runs)" "$T/err"

# Output formats: one list, the other names (markdown, collapsed) taken
# wherever the format is, and a refusal naming what the command writes.
# (8699 of the baseline's 11879 samples have exactly the stack
# __libc_start_call_main > main > parse_record: counted on the text with
# zcat and awk, a sample's frames joined root first)
expect_exit 0 pd show -f collapsed "$A"
expect_grep "^__libc_start_call_main;main;parse_record 8699$" "$T/out"
expect_exit 1 pd diff -f collapsed "$A" "$B"
expect_exit 0 pd convert -f collapsed "$A"
expect_exit 2 pd show -f pdf "$A"
expect_grep "unknown output format 'pdf' (show writes text, json or folded)" "$T/err"
expect_exit 2 pd convert -f json "$A"
expect_grep "f json: convert writes speedscope or folded" "$T/err"
history_db h
mkdir -p "$T/b/profiles"
gzip -dc "$A" >"$T/b/profiles/perf-warm.perf.txt"
printf '{"git_sha": "%040d", "scenario": "x", "commit_date": "2026-01-01T00:00:00Z"}\n' 1 >"$T/b/build_meta.json"
expect_exit 0 pd ingest "$T/b"
expect_exit 0 pd trend --scenario x -f markdown
expect_grep "^#" "$T/out"
expect_exit 0 pd help trend
expect_grep "text (default), md, json, html, xlsx" "$T/out"

# What can be refused before reading the inputs is: the inputs here do
# not exist, so the message is about -f or -o, not about them.
expect_exit 2 pd diff -f xlsx "$T/none1" "$T/none2"
expect_grep "f xlsx needs -o FILE.xlsx" "$T/err"
mkdir "$T/dir"
for c in show convert; do
	expect_exit 2 pd $c -o "$T/dir" "$T/none"
	expect_grep "$T/dir" "$T/err"
	expect_no_grep "none" "$T/err"
done

# site and db say the nearest option as every command does
expect_exit 2 pd site --pags 3 "$T/site"
expect_grep "unknown option --pags; did you mean --pages? (perfdiff help site)" "$T/err"
expect_exit 2 pd db --hlp copy a b
expect_grep "did you mean --help?" "$T/err"

# One list of commands: completion knows every command, and the man page
# says each in the words of perfdiff help.
expect_exit 0 pd completion bash
expect_grep 'cmds="alerts bundle check compare completion ' "$T/out"
pd help >"$T/help"
pd help --man >"$T/man"
for c in diff trend db; do
	s=$(sed -n "s/^  $c  *//p" "$T/help")
	expect_grep "^\\\\- $s\$" "$T/man"
done

# Every other name --from's help gives a format is one the importer takes.
pd help --markdown show | sed -n 's/.*also \(.*\)) |$/\1/p' | tr -d '`,' | tr ' ' '\n' >"$T/aliases"
[ "$(wc -l <"$T/aliases")" -ge 7 ] && ok || not_ok "no aliases in --from's help"
while read -r f; do
	pd show --from "$f" "$T/none" 2>"$T/err" >/dev/null
	expect_no_grep "unknown format" "$T/err"
done <"$T/aliases"
finish
