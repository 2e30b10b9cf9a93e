#!/bin/sh
# Alert states in the history (docs/history.md, "Alerts"), on a synthetic
# history whose changes are planted by hand: scenario scan, 21 commits of
# three runs in four series (warm and cold, from folded stacks and from
# py-spy's), parse 1000 -> 1300 samples from commit 6, read 2000 -> 2800
# from commit 10 and back to 2000 from commit 16; scenario load, one
# series, read +40 % from commit 4. Checked: trend --record stores each
# change once per series and exits 1 while nobody triaged it; the four
# series' alerts are one group; `alerts set` gives the group a state,
# with a note, who and when; expected silences trend and culprit; fixed
# is linked to the improvement that undid it; invalid is hidden with a
# note; the site shows the states; db copy keeps it all; bad ids, states and options are one-line
# errors; a hostile note reaches no terminal or table raw.
. "$(dirname "$0")/lib.sh"
history_db h
tail=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
sha() { printf '%02d%s' "$1" "$tail"; }
# bundle C S: commit C of scenario S
bundle() {
	b=$T/b-$2-$1
	mkdir -p "$b/profiles"
	printf '{"git_sha": "%s", "scenario": "%s", "commit_date": "2026-04-%02dT00:00:00Z"}\n' \
		"$(sha "$1")" "$2" "$1" >"$b/build_meta.json"
	for cache in warm cold; do
		[ "$2" = load ] && [ "$cache" = cold ] && continue
		for r in 1 2 3; do
			j=$(( (r - 2) * (1 + $1 % 3) ))
			p=1000 rd=2000
			if [ "$2" = scan ]; then
				[ "$1" -ge 6 ] && p=1300
				[ "$1" -ge 10 ] && [ "$1" -lt 16 ] && rd=2800
			elif [ "$1" -ge 4 ]; then
				rd=2800
			fi
			for tool in "" .py-spy; do
				[ "$2" = load ] && [ -n "$tool" ] && continue
				printf 'main;parse %d\nmain;read %d\nmain;other %d\n' \
					$((p + j)) $((rd - j)) $((500 + j)) \
					>"$b/profiles/${2}_${cache}_$r$tool.folded"
			done
		done
	done
	echo "$b"
}
# record S: trend --record of every series of scenario S; the exit
# statuses, one a series, in $T/rc
record() {
	: >"$T/rc"
	for rc_c in cold warm; do
		for rc_t in folded py-spy; do
			[ "$1" = load ] && { [ "$rc_c" = cold ] || [ "$rc_t" = py-spy ]; } && continue
			pd trend --record --scenario "$1" --cache "$rc_c" --tool "$rc_t" >"$T/rec.out" 2>&1
			echo $? >>"$T/rc"
		done
	done
}
c=1
while [ "$c" -le 9 ]; do
	expect_exit 0 pd ingest "$(bundle $c scan)"
	c=$((c + 1))
done

# A change nobody triaged: news in each series, one alert group.
record scan
[ "$(sort -u "$T/rc")" = 1 ] && ok || not_ok "first record: exits $(tr '\n' ' ' <"$T/rc")"
record scan
[ "$(sort -u "$T/rc")" = 0 ] && ok || not_ok "second record: exits $(tr '\n' ' ' <"$T/rc")"
expect_exit 0 pd alerts
expect_lines 2 "$T/out"
expect_grep "^#1 new regression scan/cold: total +8.6 % at 06aaaaaaaa, from parse +30.0 %" "$T/out"
expect_grep "seen in cold/folded, cold/py-spy, warm/folded, warm/py-spy; first seen 20" "$T/out"
expect_exit 1 pd trend --scenario scan --cache warm --tool py-spy
expect_grep "^ALERT scan/warm: total +8.6 % at 06aaaaaaaa, from parse +30.0 % \[alert #1: new\]$" "$T/out"

# expected: the new level is normal; trend and culprit are silent.
expect_exit 0 pd alerts set 4 expected --note "the safer parser" --who ann
expect_grep "^alert #4: expected$" "$T/out"
expect_exit 0 pd alerts -f json
python3 - "$T/out" <<'PY' && ok || not_ok "alerts json: $(cat "$T/out")"
import json, sys
a = json.load(open(sys.argv[1]))["alerts"]
assert len(a) == 1, a
g = a[0]
assert g["alert"] == 1 and g["state"] == "expected", g
assert g["note"] == "the safer parser" and g["who"] == "ann", g
assert g["changed_at"] >= g["first_seen"], g
assert [(s["cache"], s["tool"]) for s in g["series"]] == [
    ("cold", "folded"), ("cold", "py-spy"), ("warm", "folded"), ("warm", "py-spy")], g
assert g["first_bad"].startswith("06") and g["last_good"].startswith("05"), g
assert abs(g["total_change_pct"] - 100 * 300 / 3500) < 0.2, g
PY
expect_exit 0 pd trend --scenario scan --cache warm --tool py-spy
expect_grep "^ALERT scan/warm: .*\[alert #1: expected\]$" "$T/out"
expect_exit 1 pd culprit --scenario scan --cache cold --tool folded
expect_grep "^no change point in scan/cold" "$T/out"

# A second change: only it is news; it is fixed by a later improvement.
while [ "$c" -le 13 ]; do
	expect_exit 0 pd ingest "$(bundle $c scan)"
	c=$((c + 1))
done
record scan
[ "$(sort -u "$T/rc")" = 1 ] && ok || not_ok "read's record: exits $(tr '\n' ' ' <"$T/rc")"
expect_exit 0 pd alerts --state new
expect_lines 2 "$T/out"
expect_grep "^#5 new regression scan/cold: .* at 10aaaaaaaa, from read +40.0 %" "$T/out"
expect_exit 0 pd culprit --scenario scan --cache warm --tool folded
expect_grep "^first bad: $(sha 10)$" "$T/out"
# acknowledged: someone is on it, and the trend still fails (a prefix
# names the state)
expect_exit 0 pd alerts set 6 ack
expect_grep "^alert #6: acknowledged$" "$T/out"
expect_exit 1 pd trend --scenario scan --cache warm --tool folded
expect_grep "from read +40.0 % \[alert #5: acknowledged\]$" "$T/out"
USER=bob expect_exit 0 pd alerts set 5 fixed
while [ "$c" -le 21 ]; do
	expect_exit 0 pd ingest "$(bundle $c scan)"
	c=$((c + 1))
done
record scan
[ "$(sort -u "$T/rc")" = 0 ] && ok || not_ok "an improvement is no failure: exits $(tr '\n' ' ' <"$T/rc")"
expect_exit 0 pd alerts --state fixed
expect_grep "^  set by bob at 20.*; undone by #9$" "$T/out"
expect_exit 0 pd alerts --state new
expect_grep "^#9 new improvement scan/cold: .* at 16aaaaaaaa, from read -28.6 %" "$T/out"

# invalid: hidden from trend, with a note, and from the default list.
c=1
while [ "$c" -le 9 ]; do
	expect_exit 0 pd ingest "$(bundle $c load)"
	c=$((c + 1))
done
record load
[ "$(cat "$T/rc")" = 1 ] && ok || not_ok "load's record: exit $(cat "$T/rc")"
expect_exit 0 pd alerts --scenario load
expect_grep "^#13 new regression load/warm" "$T/out"
expect_exit 0 pd alerts set 13 invalid --note "$(printf 'bad \033[31mrun | =cmd\342\200\256')"
expect_exit 0 pd trend --scenario load
expect_grep "^note: 1 change point marked invalid is not shown" "$T/out"
expect_no_grep "^ALERT" "$T/out"
expect_exit 0 pd alerts --scenario load
expect_grep "^no alerts$" "$T/out"
expect_exit 0 pd alerts --state invalid
expect_grep "^#13 invalid regression load/warm" "$T/out"
expect_no_grep "$(printf '\033')" "$T/out"
expect_exit 0 pd alerts --state all -f md
expect_lines 6 "$T/out"
expect_grep '^| #13 | invalid | .* | bad .*run &#124; =cmd' "$T/out"
expect_no_grep "$(printf '\033')" "$T/out"

# The site shows the states and leaves the invalid change out.
expect_exit 0 pd site "$T/site"
expect_grep "from parse +30.0 % \[alert #1: expected\]" "$T/site/alerts.html"
expect_grep "from read +40.0 % \[alert #5: fixed\]" "$T/site/alerts.html"
expect_no_grep "load" "$T/site/alerts.html"

# db copy keeps ids, groups, states and links.
expect_exit 0 pd alerts --state all -f json
cp "$T/out" "$T/before.json"
expect_exit 0 pd db copy "$PERFDIFF_DB" "$T/copy.db"
expect_grep ", 13 alerts$" "$T/out"
expect_exit 0 pd alerts --db "$T/copy.db" --state all -f json
cmp -s "$T/before.json" "$T/out" && ok || not_ok "the copy's alerts differ"

# Errors: one line, exit 2, nothing changed.
expect_exit 2 pd alerts set 99 fixed
expect_grep "no alert #99 (perfdiff alerts lists them)" "$T/err"
expect_lines 1 "$T/err"
expect_exit 2 pd alerts set 5 closed
expect_grep "want new, acknowledged, expected, invalid, fixed or backed-out" "$T/err"
expect_exit 2 pd alerts set 5 fixed --by 13
expect_grep "alert #13 is a regression" "$T/err"
expect_exit 2 pd alerts --state bogus
expect_exit 2 pd alerts --note x
expect_exit 2 pd alerts set 5
expect_exit 2 pd trend --scenario scan --record --state "$T/s.txt"
expect_exit 0 pd alerts --state all -f json
cmp -s "$T/before.json" "$T/out" && ok || not_ok "a refused command changed the alerts"
finish
