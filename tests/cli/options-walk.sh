# The option walk of t0003-options-bind.sh (sourced after lib.sh): for each
# (command, option) pair that `perfdiff help --options-table` lists, a run
# without the option and one with it, which must differ. How each option
# is given, and on what, is a recipe below; an option whose effect a small
# input cannot show is in the allowlist with the reason.
set -f # regular expressions and globs in recipes are words, not patterns
D=$PD_ROOT/fixtures
A=$D/demo/base.perf.txt.gz
B=$D/demo/cand.perf.txt.gz
S=$D/perf/small.perf.txt
W=$T/w
mkdir -p "$T/walk" "$T/home"

# Inputs made here: what sniffing cannot name (--from), names that only
# normalisation joins (--no-normalize), the same functions in other
# modules (--no-module), a second run a side (-b, -c, --paired), a
# compilation database and a dataset (bundle init).
printf 'a b c 1\nd e 2\n' >"$T/walk/unsniffed.txt"
printf 'main;work.constprop.0 60\nmain;other 40\n' >"$T/walk/n1.folded"
printf 'main;work 60\nmain;other 40\n' >"$T/walk/n2.folded"
gzip -dc "$B" | sed 's|/opt/demo/workload|/opt/demo/moved|' >"$T/walk/moved.perf.txt"
# the candidate with a function renamed: rows removed and added (--top)
gzip -dc "$B" | sed 's/hash_key/hash_new/' | gzip >"$T/walk/renamed.perf.txt.gz"
M=$T/walk/renamed.perf.txt.gz
gzip -dc "$A" | awk 'NR % 7 != 3' >"$T/walk/a2.perf.txt"
gzip -dc "$B" | awk 'NR % 5 != 2' >"$T/walk/b2.perf.txt"
printf '[{"directory": "%s", "file": "x.c", "command": "cc -O2 -DWALK -c x.c"}]' \
	"$T" >"$T/walk/compile_commands.json"
printf 'input\n' >"$T/walk/dataset.txt"
# a pprof profile with two sample types (--sample-type) and a samply
# profile with CPU time per sample (--weight), by the tests' writers
python3 "$PD_ROOT/tests/tools/pprof_make.py" good "$T/walk/two.pb" ||
	not_ok "the walk's pprof"
cat >"$T/walk/samply.spec" <<'J'
{"lib": {"name": "app", "path": "/app", "debugName": "app", "debugPath": "/app",
         "breakpadId": "", "codeId": "", "arch": "x86_64"},
 "frames": {"main": 4096, "work": 8192},
 "stacks": [[["main", "work"], 8], [["main"], 2]], "cpu": 500}
J
python3 "$PD_ROOT/tests/tools/samply_make.py" "$T/walk/samply.spec" "$T/walk/samply.json" ||
	not_ok "the walk's samply profile"

# Histories: commits 1-8 recorded the baseline, 9-16 the candidate with
# a function renamed (h.db; enough commits for a change point at p 0.001);
# h2.db holds the same commits the other way round; scenario y is cold.
bundle() { # DIR SHA SCENARIO CACHE PROFILE
	mkdir -p "$1/profiles"
	gzip -dc "$5" >"$1/profiles/perf-$4.perf.txt"
	printf '{"git_sha": "%040d", "scenario": "%s", "cache": "%s", "commit_date": "2026-01-%02dT00:00:00Z"}\n' \
		"$2" "$3" "$4" "$2" >"$1/build_meta.json"
}
hs="" rs=""
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
	if [ "$i" -le 8 ]; then p=$A q=$M; else p=$M q=$A; fi
	bundle "$T/walk/h$i" "$i" x warm "$p"
	bundle "$T/walk/r$i" "$i" x warm "$q"
	hs="$hs $T/walk/h$i" rs="$rs $T/walk/r$i"
done
bundle "$T/walk/y" 17 y cold "$A"
PERFDIFF_DB=$T/walk/h.db pd ingest $hs "$T/walk/y" >/dev/null 2>&1 &&
	PERFDIFF_DB=$T/walk/h2.db pd ingest $rs >/dev/null 2>&1 && ok ||
	not_ok "the walk's histories"
# h.db's change point stored as an alert (alerts, trend --record)
PERFDIFF_DB=$T/walk/h.db pd trend --record --scenario x >/dev/null 2>&1
[ $? -eq 1 ] && ok || not_ok "the walk's alert"
# a bundle that says nothing of itself (ingest's --sha, --scenario, --cache)
mkdir -p "$T/walk/bare/profiles"
gzip -dc "$A" >"$T/walk/bare/profiles/perf.perf.txt"
printf '{}\n' >"$T/walk/bare/build_meta.json"
# a bundle stored under one sha that now says another (--rekey)
bundle "$T/walk/rk" 1 x warm "$A"
PERFDIFF_DB=$T/walk/rk.db pd ingest "$T/walk/rk" >/dev/null 2>&1 || not_ok "rk"
bundle "$T/walk/rk" 2 x warm "$A"
# a site already made (--rebuild)
PERFDIFF_DB=$T/walk/h.db pd site "$T/walk/site" --pages 2 >/dev/null 2>&1 ||
	not_ok "the walk's site"
git init -q "$T/walk/git" && git -C "$T/walk/git" -c user.name=t -c user.email=t@t \
	commit -q --allow-empty -m one || not_ok "git"
SHA1=$(printf '%040d' 1)
SHA8=$(printf '%040d' 16)

# The run of each command without the option under test: its operands
# (with "@A" and "@B" the inputs of the recipe) and the options it cannot
# go without.
base_of() {
	case $1 in
	diff | check) echo "@A @B" ;;
	peek) echo ". @A @B" ;;
	show | convert) echo "@A" ;;
	compare) echo "$SHA1 $SHA8 --scenario x" ;;
	trend | culprit) echo "--scenario x" ;;
	runs | db | help | version) echo "" ;;
	completion) echo "bash" ;;
	ingest) echo "$T/walk/h1 $T/walk/h5" ;;
	bundle) echo "init $W/nb --scenario s --cache warm --sha 1234567" ;;
	site) echo "$W/site --pages 1" ;;
	alerts) echo "" ;;
	*) echo "?" ;;
	esac
}

# Recipes: COMMANDS|OPTION|INPUTS|CONTEXT|WITH|ERR
#   COMMANDS  names, or in: diff check peek show convert; run: diff check
#             peek; judge: run and compare; series: trend culprit; all
#   INPUTS    @A and @B ("-": the demo's two profiles; one for show)
#   CONTEXT   given to both runs ("noops": the operands left out)
#   WITH      the option under test, with its value
#   ERR       "err": the run with the option may end in an error (a
#             value the history or git cannot resolve is an answer too)
# Options the command's base run already gives are tested by leaving
# them out. check --function is anchored to main itself: on the demo the
# whole verdict is regressed (parse_record), main's total (the whole
# program) inconclusive; a bare "main" would also match
# sched_balance_domains, added in the candidate, and give bad as well.
recipes() {
	cat <<EOF
in|--from|$T/walk/unsniffed.txt $T/walk/unsniffed.txt||--from folded|err
in|--event|$S $S||--event cycles|
in|--process|$S $S||--process 'worker'|
in|--thread|$S $S||--thread 103|
in|--sample-weight|$D/folded/small.folded $D/folded/small.folded||--sample-weight 0.5|
in|--folded-unit|$D/folded/small.folded $D/folded/small.folded||--folded-unit us|
in|--interval|$D/speedscope/perfview-evented.speedscope.json $D/speedscope/perfview-evented.speedscope.json||--interval 5|
in|--symbols|$D/perfdata/mixed.data $D/perfdata/mixed.data||--symbols $D/perfdata|
in|--decimal|$D/wpa/cpu-stack-ptBR.csv $D/wpa/cpu-stack-ptBR.csv||--decimal .|err
in|--sample-type|$T/walk/two.pb $T/walk/two.pb||--sample-type samples|
in|--weight|$T/walk/samply.json $T/walk/samply.json||--weight wall|
in|--metric|$D/dhat/tiny.dhat.out $D/dhat/tiny.dhat.out||--metric blocks|
in|--alloc-frames|$D/dhat/tiny.dhat.out $D/dhat/tiny.dhat.out||--alloc-frames main|
in|--focus|-||--focus hash_key|
in|--ignore|-||--ignore hash_key|
in|--hide|-||--hide main|
in|--help|-||--help|
show|--counts|$D/speedscope/perfview-evented.speedscope.json||-f folded|--counts|err
convert|--counts|$D/speedscope/perfview-evented.speedscope.json||-f folded|--counts|err
run|--baseline|-|noops|-b @A -b $T/walk/a2.perf.txt -c @B -c $T/walk/b2.perf.txt|
run|--candidate|-|noops|-b @A -b $T/walk/a2.perf.txt -c @B -c $T/walk/b2.perf.txt|
run|--paired|-|noops -b @A -b $T/walk/a2.perf.txt -c @B -c $T/walk/b2.perf.txt|--paired|
check|--function|-||--function '^main '|
judge|--no-normalize|$T/walk/n1.folded $T/walk/n2.folded||--no-normalize|
judge|--no-module|$A $T/walk/moved.perf.txt||--no-module|
judge|--system|$S $S||--system include|
judge|--threshold|-||--threshold 60|
judge|--min-impact|-||--min-impact 40|
judge|--alpha|-||--alpha 1e-9|
judge|--dispersion|-||--dispersion 500|
judge|--run-cv|-||--run-cv 60|
judge|--treat|-||--treat|
judge|--share|-||--share|
check|--db|-|noops db:$SHA1:x db:$SHA8:x|--db $T/walk/h2.db|
compare ingest runs series site|--db|-||--db $T/walk/h2.db|err
check|--scenario|-|noops db:$SHA1 db:$SHA8|--scenario x|
check|--cache|-|noops db:$SHA1:x db:$SHA8:x|--cache cold|err
check|--tool|-|noops db:$SHA1:x db:$SHA8:x|--tool samply|err
check|--repo|-|noops db:$SHA1:x db:$SHA8:x|--repo $T/walk/git|err
compare series|--scenario|-||--scenario x|
compare series|--cache|-||--cache cold|err
compare series|--tool|-||--tool samply|err
diff peek|--cache|$T/walk/h1 $T/walk/h5||--cache cold|err
diff peek|--tool|$T/walk/h1 $T/walk/h5||--tool samply|err
compare ingest bundle series site|--repo|-||--repo $T/walk/git|err
compare|--base-of|-||--base-of HEAD|err
ingest|--scenario|-|noops $T/walk/bare --sha 1234567|--scenario z|err
ingest|--cache|-|noops $T/walk/bare --sha 1234567 --scenario z|--cache cold|
ingest|--sha|-|noops $T/walk/bare --scenario z|--sha 1234567|err
ingest|--rekey|-|--db $T/walk/rk.db noops $T/walk/rk|--rekey|err
ingest|--verbose|-||--verbose|
runs|--scenario|-||--scenario y|
runs|--cache|-||--cache cold|
runs|--sha|-||--sha $SHA1|
runs|--verbose|-||-v|
bundle|--scenario|-||--scenario s|err
bundle|--cache|-||--cache warm|err
bundle|--sha|-||--sha 1234567|err
bundle|--dataset|-||--dataset $T/walk/dataset.txt|
bundle|--cflags-from|-||--cflags-from $T/walk/compile_commands.json|
bundle|--build-cmd|-||--build-cmd 'make walk'|
series site|--last|-||--last 3|
series|--since|-||--since 2026-01-06|
series|--function|-||--function parse_record|
series|--p|-||--p 1e-4|
series|--threshold|-||--threshold 90|
series|--alert-after|-||--alert-after $SHA8|err
trend|--state|-||--state $W/state|
trend|--record|-||--record|
alerts|--db|-||--db $T/walk/h2.db|
alerts|--scenario|-||--scenario y|
alerts|--state|-||--state invalid|
alerts|--since|-||--since 2999-01-01|
alerts|--note|-|noops set 1 expected|--note why|
alerts|--who|-|noops set 1 expected|--who ann|
alerts|--by|-|noops set 1 fixed|--by 1|err
culprit|--improvements|-|--db $T/walk/h2.db|--improvements|
trend|--commit-url|-|-f md|--commit-url https://example.org/c/{sha}|
site|--commit-url|-||--commit-url https://example.org/c/{sha}|
site|--pages|-||--pages 3|
site|--rebuild|-|noops $T/walk/site|--rebuild|
convert|--format|-||-f folded|
all|--format|-||-f json|
all|--output|-||-o $W/out|
diff check|--top|$S $B||--top 1|
compare show|--top|-||--top 1|
series|--top|-||--top 0|
diff check|--sort|$S $B||--sort cum|
compare|--sort|-||--sort cum|
diff check compare trend|--color|-||--color always|
all|--help|-||--help|
help|--man|-||--man|
help|--markdown|-||--markdown diff|
help|--options-table|-||--options-table|
help|--synopsis|-||--synopsis|
EOF
}

# Not observable on a small input, and why:
allowlisted() {
	case $2 in
	# PE/PDB and Mach-O frames only, and an llvm-symbolizer (t0405)
	--symbolizer) return 0 ;;
	# ingest prints no function: the names it gives go into the history,
	# which t0405 reads back
	--symbols) [ "$1" = ingest ] && return 0 ;;
	# only perf.data files perfdiff cannot read itself (DWARF or LBR call
	# graphs, compressed) go to perf (t0210 records one)
	--perf) return 0 ;;
	esac
	return 1
}

# The recipe line of command $1, option $2 (the first that names both).
recipe_of() {
	recipes | while IFS='|' read -r cmds opt inputs ctx with err; do
		[ "$opt" = "$2" ] || continue
		for c in $cmds; do
			case $c in
			in) c="diff check peek show convert" ;;
			run) c="diff check peek" ;;
			judge) c="diff check peek compare" ;;
			series) c="trend culprit" ;;
			all) c=$1 ;;
			esac
			for x in $c; do
				if [ "$x" = "$1" ]; then
					printf '%s|%s|%s|%s\n' "$inputs" "$ctx" "$with" "$err"
					return
				fi
			done
		done
	done | head -n 1
}

# snap OUT ARGS...: perfdiff ARGS run in a new $W on a copy of the
# history, wrapped by $sn_wrap; what it did, written to OUT.
snap() {
	sn_out=$1
	shift
	rm -rf "$W"
	mkdir -p "$W"
	cp "$T/walk/h.db" "$W/h.db"
	(cd "$W" || exit 2
	PD_WRAP=$sn_wrap
	PERFDIFF_DB="$W/h.db" HOME="$T/home" PERF_BUILDID_DIR="$T/home/none" NO_COLOR= \
		eval pd "$@" >"$T/walk/o" 2>"$T/walk/e")
	sn_rc=$?
	{
		echo "exit $sn_rc"
		cat "$T/walk/o" "$T/walk/e"
		find "$W" -type f ! -name '*-wal' ! -name '*-shm' ! -name '*-journal' | sort |
			while read -r f; do
				echo "== $f"
				case $f in
				*.db)
					PERFDIFF_DB= "$PERFDIFF" runs -f tsv --db "$f" 2>&1
					PERFDIFF_DB= "$PERFDIFF" alerts --state all -f json --db "$f" 2>&1 |
						grep -v '"changed_at"\|"first_seen"'
					;;
				*) grep -av '"date"' "$f" ;;
				esac
			done
	} >"$sn_out" 2>&1
	return $sn_rc
}

# The inputs of a recipe: IA and IB ("-": the demo's two profiles).
inputs_ab() {
	case $1 in
	- | "") IA=$A IB=$B ;;
	*) IA=${1%% *} IB=${1#* } ;;
	esac
}

# The words of a run: the command, its base run's with the inputs put in.
words() { # CMD CONTEXT
	w_ops=$(base_of "$1")
	case $2 in
	*noops*)
		w_ops=$(printf '%s\n' "$w_ops" | sed 's/@A *//; s/@B *//')
		case $1 in
		ingest | site) w_ops="" ;;
		esac
		;;
	esac
	printf '%s %s %s\n' "$1" "$w_ops" "$(printf '%s' "$2" | sed 's/noops//')" |
		sed "s|@A|$IA|g; s|@B|$IB|g"
}

walked=0 sn_wrap=
pd help --options-table >"$T/walk/table" || not_ok "help --options-table"
while IFS="	" read -r cmd opt kind arg; do
	case $kind in *=*) continue ;; esac # another name of an option walked
	r=$(recipe_of "$cmd" "$opt")
	if [ -z "$r" ]; then
		allowlisted "$cmd" "$opt" && continue
		not_ok "$cmd $opt: no recipe in options-walk.sh (nor a reason it cannot be seen)"
		continue
	fi
	IFS='|' read -r inputs ctx with err <<R
$r
R
	inputs_ab "$inputs"
	without=$(words "$cmd" "$ctx")
	opt_words=$(printf '%s' "$with" | sed "s|@A|$IA|g; s|@B|$IB|g")
	# an option the base run gives is tested by leaving it out
	case " $without " in
	*" $opt_words "*)
		with=$without
		without=$(printf '%s' " $without " | sed "s| $opt_words | |")
		;;
	*) with="$without $opt_words" ;;
	esac
	# under a wrapper (valgrind) the run with the option is the one
	# checked; the run without it and the listings only observe
	sn_wrap=
	snap "$T/walk/without" $without
	sn_wrap=$PD_WRAP
	snap "$T/walk/with" $with
	rc=$?
	walked=$((walked + 1))
	case $rc in
	0 | 1 | 125) ;;
	*) if [ "$err" != err ]; then
		not_ok "$cmd $opt: perfdiff $with exited $rc: $(head -c 300 "$T/walk/e")"
		continue
	fi ;;
	esac
	if cmp -s "$T/walk/without" "$T/walk/with"; then
		not_ok "$cmd $opt: accepted and changed nothing: perfdiff $with"
	else
		ok
	fi
done <"$T/walk/table"
[ "$walked" -gt 150 ] && ok || not_ok "only $walked pairs walked"
set +f
