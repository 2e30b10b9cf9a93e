#!/bin/sh
# What a command's help lists is what it reads: an option it would take
# and then ignore is refused as unknown (docs/cli.md). Each pair here was
# once accepted and did nothing.
. "$(dirname "$0")/lib.sh"
history_db h
for i in 1 2 3; do
	b=$T/b$i
	mkdir -p "$b/profiles"
	gzip -dc "$PD_ROOT/fixtures/demo/base.perf.txt.gz" >"$b/profiles/perf-warm.perf.txt"
	printf '{"git_sha": "%040d", "scenario": "x", "commit_date": "2026-01-0%dT00:00:00Z"}\n' \
		"$i" "$i" >"$b/build_meta.json"
done
expect_exit 0 pd ingest "$T/b1" "$T/b2" "$T/b3"

# unknown option NAME for CMD ARGS...: exit 2, the option named
refused() {
	o=$1
	shift
	expect_exit 2 pd "$@"
	expect_grep "unknown option $o" "$T/err"
	[ ! -e "$T/made" ] && ok || { not_ok "$* wrote a file"; rm -f "$T/made"; }
}
refused -f culprit --scenario x -f json -o "$T/made"
refused --state culprit --scenario x --state "$T/made"
refused --color culprit --scenario x --color always
refused --improvements trend --scenario x --improvements
refused --repo runs --repo /nonexistent
refused --db bundle init "$T/newb" --scenario s --cache warm --sha 1234567 --db "$T/made"
refused -b compare 0000000000000000000000000000000000000001 \
	0000000000000000000000000000000000000002 --scenario x -b "$T/b1"
refused --top peek main "$T/b1" "$T/b2" --top 3
# stored runs hold normalised names and system time set apart already
refused --no-normalize compare 0000000000000000000000000000000000000001 \
	0000000000000000000000000000000000000002 --scenario x --no-normalize
refused --system compare 0000000000000000000000000000000000000001 \
	0000000000000000000000000000000000000002 --scenario x --system include
# a value the command cannot use is refused, as diff refuses it
expect_exit 2 pd trend --scenario x --color sometimes
expect_grep "color wants auto, always or never" "$T/err"
# and what the help lists still works
expect_exit 1 pd culprit --scenario x --improvements # 1: no change
expect_exit 0 pd trend --scenario x -f json -o "$T/t.json" --state "$T/state" --color never
[ -s "$T/t.json" ] && ok || not_ok "trend -o wrote nothing"
expect_exit 0 pd runs -v
# the short options come from the same table: no hidden letters
for cmd in compare trend culprit runs ingest; do
	expect_exit 2 pd "$cmd" -b x
	expect_grep "unknown option -b\|unknown option" "$T/err"
done

# Every (command, option) pair of the option table, walked: the command
# runs on small inputs without the option and with it, and the two runs
# must differ in what can be seen (exit status, standard output and
# error, the files it writes, the history's runs). An option a command
# accepts and then ignores fails here; one it cannot honour must be
# refused (unknown option) instead. The table comes from perfdiff itself
# (help --options-table), so a new option fails until it has a recipe
# below or a reason in the allowlist.
. "$(dirname "$0")/options-walk.sh"
finish
