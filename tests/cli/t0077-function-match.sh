#!/bin/sh
# --function picks a function by its name alone or by "name [module]"
# (docs/cli.md, "--function"): '^parse$' finds parse in app, as does
# 'parse \[app\]', for check, peek and trend alike. Before, the pattern
# saw "parse [app]" only, so an anchored name matched nothing in any
# profile with modules and a bisect on it skipped every commit.
. "$(dirname "$0")/lib.sh"

# perf script text: N samples of parse (self) under main in app, and
# 1000 of idle, one sample every 1 ms of cpu-clock.
perf_text() {
	awk -v n="$1" 'BEGIN {
		t = 0
		for (i = 0; i < n + 1000; i++) {
			t += 0.001
			printf "app 100 %.6f: 1000000 cpu-clock:pppH:\n", t
			if (i < n)
				print "\t    1010 parse+0x10 (/opt/app)"
			else
				print "\t    1040 idle+0x4 (/opt/app)"
			print "\t    1020 main+0x20 (/opt/app)\n"
		}
	}'
}
perf_text 600 >"$T/a.perf.txt"
perf_text 1200 >"$T/b.perf.txt"

expect_exit 1 pd check "$T/a.perf.txt" "$T/b.perf.txt" --function '^parse$'
expect_no_grep 'no function matches' "$T/err"
expect_exit 1 pd check "$T/a.perf.txt" "$T/b.perf.txt" --function 'parse \[app\]$'
expect_exit 125 pd check "$T/a.perf.txt" "$T/b.perf.txt" --function "^idle$"
expect_no_grep "no function matches" "$T/err"
expect_exit 125 pd check "$T/a.perf.txt" "$T/b.perf.txt" --function '^pars$'
expect_grep 'no function matches --function ^pars\$' "$T/err"
# a module alone matches every function in it: idle held, parse regressed
expect_exit 1 pd check "$T/a.perf.txt" "$T/b.perf.txt" --function '\[app\]'

expect_exit 0 pd peek '^parse$' "$T/a.perf.txt" "$T/b.perf.txt"
expect_grep '^peek parse \[app\]: self +100.0 % regressed' "$T/out"
expect_exit 2 pd peek '^pars$' "$T/a.perf.txt" "$T/b.perf.txt"

# trend over a history of three commits before and three after
i=0
for side in a a a b b b; do
	i=$((i + 1))
	b=$T/bundle$i
	mkdir -p "$b/profiles"
	printf '{"git_sha": "%040d", "scenario": "s", "cache": "warm", "commit_date": "2026-01-0%dT00:00:00Z"}\n' \
		"$i" "$i" >"$b/build_meta.json"
	cp "$T/$side.perf.txt" "$b/profiles/run.1.perf.txt"
	expect_exit 0 pd ingest --db "$T/h.db" "$b"
done
expect_exit 0 pd trend --db "$T/h.db" --scenario s --function '^parse$' -f json
expect_grep '"name":.*"parse \[app\]"' "$T/out"
expect_exit 2 pd trend --db "$T/h.db" --scenario s --function '^pars$'
finish
