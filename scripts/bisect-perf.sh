#!/bin/sh
# Marks the current checkout good, bad or skip for `git bisect run`, by
# profiling it until the comparison with a baseline decides.
#
#   git bisect start BAD GOOD
#   git bisect run /path/to/scripts/bisect-perf.sh \
#       --build 'make -j4' --run './app --input data.bin' \
#       --baseline db:GOOD:SCENARIO[:CACHE] --db perfdiff.db --function REGEX
#
# Each step builds the checkout (a failed build skips it: exit 125). With
# a stored baseline whose commit git knows, that commit is built once too
# (a clone kept in .git/perfdiff-bisect/) and the two builds are recorded
# in turn, baseline then checkout, so that both see the same machine; the
# runs are compared paired (perfdiff check --paired). Without one (a
# bundle baseline, or --baseline-rev none) the checkout's runs are
# compared with the baseline's own. It records 3 runs a side, then more,
# looking again at 4, 6, 8, 11, 15, ... runs, until perfdiff check
# decides: bad (1) when the watched functions regressed beyond the
# threshold, good (0) when they are shown to be within it (or better),
# or the budget (--runs) is spent: skip (125), saying how many runs a side
# would likely decide it. 128 on an error stops the bisect.
#
# How to record comes from the stored runs of the baseline (perfdiff runs
# -f tsv): their cache state (warm: one unrecorded run first; cold: no
# warm-up, and before every run the page cache of the files the run
# command names is dropped, see --cold-cmd) and their sampling rate.
#
# With --tool callgrind or cachegrind each run is recorded under valgrind
# instead: exact counts of what the program did, the same on any machine,
# so one run a side decides (perfdiff check judges exact counts by the
# threshold alone) and no warm-up run goes first. The run command's own
# process is not recorded, only what it starts (the largest one when it
# starts several).
#
# Options:
#   --build CMD       build command, run in the checkout (sh -c)
#   --run CMD         the scenario's command (sh -c), profiled
#   --baseline SPEC   db:REV:SCENARIO[:CACHE] or a bundle folder
#   --db DB           history: SQLite file or postgresql:// URL (default $PERFDIFF_DB)
#   --function RE     decide on these functions only
#   --threshold PCT   smallest change that is bad (default 10)
#   --runs N          most runs a side before skipping (default 15)
#   --baseline-rev R  the commit to build and record in turn with the
#                     checkout (default: the db: baseline's; none: no such)
#   --cache C         warm or cold (default: the baseline's)
#   --cold-cmd CMD    run before every cold run (default: drop the page
#                     cache of every file the run command names and of each
#                     --cold-file, with dd iflag=nocache: no root needed)
#   --cold-file PATH  one more file to drop from the page cache (repeatable)
#   --freq HZ         perf sampling frequency (default: the stored runs', else 4000)
#   --tool T          the stored runs' profiler (default perf, with perf record;
#                     callgrind or cachegrind: recorded with valgrind)
#   --profile CMD     profiling command instead of perf record: writes one
#                     profile to "$PD_PROFILE_OUT" per run
#   --keep DIR        keep the bundles: DIR/<sha>/cand, and base (default: removed)
#   --perfdiff BIN    the perfdiff binary (default: perfdiff on PATH)
#   --first REV       in a started bisect, outside git bisect run: test REV
#                     and its parent first (the likeliest culprit, as
#                     perfdiff culprit --repo ranks them) and mark them;
#                     bad at REV and good at its parent ends the bisect
#   -- ARGS           further options for perfdiff check
set -u

build= run= baseline= fn= runs=15 first=3 threshold=10 freq= profile= keep=
pd=${PERFDIFF:-perfdiff} cache= tool= base_rev= cold_cmd= cold_files=
q() { printf '%s' "$1" | sed "s/'/'\\\\''/g; s/^/'/; s/\$/'/"; }
# the arguments again, without --first, for the steps --first runs
first_rev= self_args= skip=
for a in "$@"; do
	if [ -n "$skip" ]; then
		first_rev=$a skip=
	elif [ "$a" = --first ]; then
		skip=1
	else
		self_args="$self_args $(q "$a")"
	fi
done
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$2; shift 2 ;;
	--run) run=$2; shift 2 ;;
	--baseline) baseline=$2; shift 2 ;;
	--db) PERFDIFF_DB=$2; export PERFDIFF_DB; shift 2 ;;
	--function) fn=$2; shift 2 ;;
	--threshold) threshold=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--baseline-rev) base_rev=$2; shift 2 ;;
	--cache) cache=$2; shift 2 ;;
	--cold-cmd) cold_cmd=$2; shift 2 ;;
	--cold-file) cold_files="$cold_files $(q "$2")"; shift 2 ;;
	--freq) freq=$2; shift 2 ;;
	--tool) tool=$2; shift 2 ;;
	--profile) profile=$2; shift 2 ;;
	--keep) keep=$2; shift 2 ;;
	--perfdiff) pd=$2; shift 2 ;;
	--first) shift 2 ;;
	--) shift; break ;;
	*) echo "bisect-perf: unknown option $1" >&2; exit 128 ;;
	esac
done
if [ -z "$run" ] || [ -z "$baseline" ]; then
	echo "bisect-perf: --run and --baseline are required" >&2
	exit 128
fi
# --first REV: the likeliest commit and its parent, each one step of this
# script, marked in the started bisect; git bisect then goes on from
# what they said (or names REV when it is bad and its parent good).
if [ -n "$first_rev" ]; then
	git bisect log >/dev/null 2>&1 || {
		echo "bisect-perf: --first needs a started bisect: git bisect start BAD GOOD" >&2
		exit 128
	}
	for rev in "$first_rev" "$first_rev~1"; do
		full=$(git rev-parse --verify -q "$rev^{commit}") || {
			echo "bisect-perf: --first $first_rev: $rev is not a commit" >&2
			exit 128
		}
		git checkout -q "$full" || exit 128
		eval "sh \"\$0\" $self_args"
		case $? in
		0) git bisect good "$full" ;;
		1) git bisect bad "$full" ;;
		125) git bisect skip "$full" ;;
		*) exit 128 ;;
		esac
	done
	exit 0
fi
# what goes to perfdiff check after ours (a --threshold there wins)
extra=
while [ $# -gt 0 ]; do
	case $1 in
	--threshold) [ $# -ge 2 ] && threshold=$2 ;;
	--threshold=*) threshold=${1#--threshold=} ;;
	esac
	extra="$extra $(q "$1")"
	shift
done
case $runs in '' | *[!0-9]* | 0) echo "bisect-perf: --runs wants a number of runs" >&2; exit 128 ;; esac
[ "$runs" -ge "$first" ] || first=$runs
say() { echo "bisect-perf: $*" >&2; }
sha=$(git rev-parse HEAD) || exit 128
short=$(printf '%.10s' "$sha")
started=$(date +%s)
work=$(mktemp -d "${TMPDIR:-/tmp}/bisect-perf.XXXXXX") || exit 128
trap 'rm -rf "$work"' EXIT
tab=$(printf '\t')

# The baseline: scenario, commit and cache state, and how its runs were
# recorded (perfdiff runs -f tsv: field 4 cache, 5 tool, 11 sample rate).
scenario=bisect spec_rev= spec_cache=
case $baseline in
db:*)
	spec_rev=$(printf '%s' "$baseline" | cut -d: -f2)
	scenario=$(printf '%s' "$baseline" | cut -d: -f3)
	spec_cache=$(printf '%s' "$baseline" | cut -d: -f4-)
	if [ -z "$spec_rev" ] || [ -z "$scenario" ]; then
		say "--baseline $baseline: want db:REV:SCENARIO[:CACHE]"
		exit 128
	fi
	;;
esac
[ -z "$tool" ] && [ -z "$profile" ] && tool=perf
# valgrind's tools count every event: one run a side is the answer
vg=
case $tool in
callgrind | cachegrind)
	if [ -z "$profile" ]; then
		vg=$tool first=1
		command -v valgrind >/dev/null ||
			{ say "--tool $tool: valgrind is not installed"; exit 128; }
	fi ;;
esac
[ -z "$cache" ] && cache=$spec_cache
if [ -z "$base_rev" ] && [ -n "$spec_rev" ]; then
	base_rev=$(git rev-parse -q --verify "$spec_rev^{commit}" 2>/dev/null) || base_rev=none
fi
[ -n "$base_rev" ] || base_rev=none
rate=
if [ -n "$spec_rev" ]; then
	"$pd" runs -f tsv --sha "$spec_rev" --scenario "$scenario" \
		>"$work/runs" 2>"$work/err" || { cat "$work/err" >&2; exit 128; }
	mine() {
		awk -F "$tab" -v t="$1" -v c="$cache" \
			'(t == "" || $5 == t) && (c == "" || $4 == c)' \
			"$work/runs" >"$work/mine"
	}
	mine "$tool"
	# recorded in turn with the baseline build, the stored runs only say
	# how to record: another profiler's say it too
	if [ ! -s "$work/mine" ] && [ "$base_rev" != none ] && [ -n "$tool" ]; then
		mine ""
		[ -s "$work/mine" ] &&
			say "no stored runs of $spec_rev by $tool: recording as its $(cut -f5 "$work/mine" | sort -u | tr '\n' ' ')runs were"
	fi
	if [ ! -s "$work/mine" ]; then
		say "no stored runs of $spec_rev in $scenario${cache:+/$cache}${tool:+ by $tool}"
		exit 128
	fi
	if [ -z "$cache" ]; then
		cache=$(cut -f4 "$work/mine" | sort -u)
		case $cache in
		*"
"*)
			say "$spec_rev has runs of several cache states in $scenario ($(echo $cache)): choose with --cache or db:REV:SCENARIO:CACHE"
			exit 128 ;;
		esac
	fi
	# the median rate of the stored runs: what perf was asked for
	rate=$(cut -f11 "$work/mine" | grep . | sort -n |
		awk '{ v[NR] = $1 } END { if (NR) printf "%.0f", v[int((NR + 1) / 2)] }')
elif [ -z "$cache" ] && [ -f "$baseline/build_meta.json" ]; then
	cache=$(sed -n 's/.*"cache\(_state\)\{0,1\}"[ 	]*:[ 	]*"\([A-Za-z]*\)".*/\2/p' \
		"$baseline/build_meta.json" | head -1)
fi
case $cache in
warm | cold) ;;
'') say "the baseline says no cache state: give --cache warm or --cache cold"; exit 128 ;;
*) say "cache state $cache: want warm or cold"; exit 128 ;;
esac
how=
if [ -n "$profile" ]; then
	freq=
elif [ -n "$vg" ]; then
	freq=
	how=" under valgrind --tool=$vg (exact counts)"
elif [ -n "$freq" ]; then
	how=" at $freq Hz"
elif [ -n "$rate" ]; then
	freq=$rate
	how=" at $freq Hz (the stored runs' rate)"
else
	freq=4000
	how=" at $freq Hz (perf's default)"
fi

# The baseline build recorded in turn with the checkout.
if [ "$base_rev" != none ]; then
	base_sha=$(git rev-parse -q --verify "$base_rev^{commit}") ||
		{ say "--baseline-rev $base_rev: no such commit"; exit 128; }
	top=$(git rev-parse --show-toplevel) || exit 128
	sub=$(git rev-parse --show-prefix)
	keepdir=$(git rev-parse --git-path perfdiff-bisect) || exit 128
	case $keepdir in /*) ;; *) keepdir=$(pwd)/$keepdir ;; esac
	bdir=$keepdir/$base_sha
	if [ ! -f "$bdir/.perfdiff-built" ]; then
		say "building the baseline $(printf '%.10s' "$base_sha") in $bdir"
		rm -rf "$bdir" && mkdir -p "$keepdir" &&
			git clone -q --shared --no-checkout "$top" "$bdir" >&2 &&
			git -C "$bdir" checkout -q --detach "$base_sha" >&2 ||
			{ say "cannot check out $base_sha in $bdir"; exit 128; }
		if [ -n "$build" ] && ! (cd "$bdir/$sub" && sh -c "$build") >&2; then
			say "the baseline $base_sha does not build: stopping"
			exit 128
		fi
		: >"$bdir/.perfdiff-built"
	fi
	bdir=$bdir/$sub
fi

if [ -n "$build" ] && ! sh -c "$build" >&2; then
	say "$sha does not build: skipped"
	exit 125
fi
for side in base cand; do
	mkdir -p "$work/$side/profiles"
done
printf '{"git_sha": "%s", "scenario": "%s", "cache": "%s"}\n' \
	"$sha" "$scenario" "$cache" >"$work/cand/build_meta.json"
if [ "$base_rev" != none ]; then
	printf '{"git_sha": "%s", "scenario": "%s", "cache": "%s"}\n' \
		"$base_sha" "$scenario" "$cache" >"$work/base/build_meta.json"
fi

# Cold: the page cache of the run command's files (each word that names
# a file, in the folder it runs in) and of --cold-file dropped.
cold() {
	if [ -n "$cold_cmd" ]; then
		sh -c "$cold_cmd" >&2 || { say "--cold-cmd failed"; return 1; }
		return 0
	fi
	[ "$can_drop" = yes ] || return 0
	eval "set -- $run_words $cold_files"
	for f in "$@"; do
		[ -f "$f" ] || continue
		sync "$f" 2>/dev/null
		dd if="$f" iflag=nocache count=0 status=none 2>/dev/null
	done
	return 0
}
run_words=
for w in $run; do
	run_words="$run_words $(q "$w")"
done
can_drop=no
if [ "$cache" = cold ] && [ -z "$cold_cmd" ]; then
	if dd if=/dev/null iflag=nocache count=0 status=none 2>/dev/null; then
		can_drop=yes
	else
		say "this dd cannot drop a file from the page cache (iflag=nocache): cold runs only go without a warm-up (--cold-cmd does more)"
	fi
fi

# pfile SIDE I: the profile of run I of a side
pfile() {
	if [ -n "$profile" ]; then
		echo "$work/$1/profiles/run-$2"
	elif [ -n "$vg" ]; then
		# the tool and the cache state in the name, as perfdiff reads them
		echo "$work/$1/profiles/$vg.$cache.$2.out"
	else
		echo "$work/$1/profiles/perf.script.$2.txt"
	fi
}

# vgrecord OUT: the run command under valgrind, every process it starts
# writing a file of its own (%p); the command's shell (valgrind's pid) is
# left out unless it is all there is (it ran the program in its place),
# and of several the one with the largest total is kept.
vgrecord() {
	vgout=$1
	rm -rf "$work/vg" && mkdir -p "$work/vg" || return 128
	valgrind -q --tool="$vg" --trace-children=yes \
		"--$vg-out-file=$work/vg/out.%p" -- sh -c "$run" \
		>/dev/null 2>"$work/vg.err" &
	top=$!
	wait "$top" || { cat "$work/vg.err" >&2; return 125; }
	set -- "$work"/vg/out.*
	[ -f "$1" ] || { say "valgrind wrote no profile"; return 128; }
	[ $# -gt 1 ] && rm -f "$work/vg/out.$top"
	best= most=-1 procs=0
	for f in "$work"/vg/out.*; do
		procs=$((procs + 1))
		t=$(sed -n 's/^\(totals\|summary\):[ \t]*\([0-9]*\).*/\2/p' "$f" | tail -1)
		[ "${t:-0}" -gt "$most" ] && most=${t:-0} best=$f
	done
	[ "$procs" -gt 1 ] &&
		say "the run started $procs processes: keeping $(sed -n 's/^cmd:[ \t]*//p' "$best" | head -1) ($most events)"
	mv "$best" "$vgout"
}

# record SIDE I: run I of the checkout (cand) or the baseline build (base)
record() {
	if [ "$1" = cand ]; then dir=.; else dir=$bdir; fi
	out=$(pfile "$1" "$2")
	(
		cd "$dir" || exit 128
		if [ "$cache" = cold ]; then cold || exit 128; fi
		if [ -n "$profile" ]; then
			PD_PROFILE_OUT=$out
			export PD_PROFILE_OUT
			sh -c "$profile" >/dev/null || exit 125
		elif [ -n "$vg" ]; then
			vgrecord "$out" || exit $?
		else
			perf record -q -g -F "$freq" -o "$work/perf.data" -- sh -c "$run" \
				>/dev/null 2>"$work/perf.err" || exit 125
			perf script -i "$work/perf.data" >"$out" 2>/dev/null || exit 128
			rm -f "$work/perf.data"
		fi
	)
}

# One line per deciding metric of a check's JSON report: name, metric,
# status, change and 95 % interval in percent; then, for an inconclusive
# one, the runs a side that would likely decide it: the interval narrows
# as 1/sqrt(runs), and must come to lie beyond the threshold (bad) or,
# at 90 %, within it (good): whichever is nearer (docs/statistics.md,
# "What counts as a change").
summary() {
	PD_FN=$fn awk -v runs="$n" -v thr="$threshold" '
	function val(s) {
		sub(/^[^:]*:[ \t]*/, "", s); sub(/,$/, "", s)
		gsub(/^"|"$/, "", s); return s
	}
	function pct(r) { return r == "null" ? "?" : sprintf("%+.1f", 100 * (r - 1)) }
	function need(   L, hw, d, gap, k) {
		if (st != "inconclusive" || r == "null" || lo == "null" || hi == "null" ||
		    r <= 0 || lo <= 0 || hi <= 0)
			return ""
		L = log(r); hw = (log(hi) - log(lo)) / 2; d = log(1 + thr / 100)
		if (L < 0) L = -L
		gap = L < d ? d - L : L - d
		if (L < d) hw *= 1.645 / 1.96
		if (gap < hw / 1000) return "near"
		k = runs * (hw / gap) ^ 2
		k = k > int(k) ? int(k) + 1 : int(k)
		# within a fifth of the threshold of it: the threshold is the
		# question, not the runs
		return gap < d / 5 ? "near " k : k
	}
	/^\t"total":\t\{/ { if (ENVIRON["PD_FN"] == "") { full = "total"; metric = ""; on = 1 } }
	/^\t\t\t"function":\t/ { name = val($0) }
	/^\t\t\t"module":\t/ {
		m = val($0); full = m == "null" || m == "" ? name : name " [" m "]"
		want = ENVIRON["PD_FN"] != "" && full ~ ENVIRON["PD_FN"]
	}
	/^\t\t\t"(self|total)":\t\{/ { metric = $0 ~ /"self"/ ? " self" : " total"; on = want }
	on && /"status":/ { st = val($0) }
	on && /"ratio":/ { r = val($0) }
	on && /"ci_low":/ { lo = val($0) }
	on && /"ci_high":/ { hi = val($0) }
	on && /^\t(\t\t)?\},?$/ {
		# no interval: exact counts
		if (lo == "null" && hi == "null")
			line = sprintf("%s %s %% (exact)", st, pct(r))
		else
			line = sprintf("%s %s %% (95 %% CI %s .. %s %%)", st, pct(r), pct(lo), pct(hi))
		# a total that is its self time (a leaf) once
		if (metric != " total" || line != self)
			printf "%s%s %s\t%s\n", full, metric, line, need()
		self = metric == " self" ? line : ""
		on = 0
	}' "$1"
}

# check: perfdiff check of the runs so far; its exit status
check() {
	if [ "$base_rev" != none ]; then
		set -- --paired
		i=1
		while [ "$i" -le "$n" ]; do
			set -- "$@" -b "$(pfile base "$i")" -c "$(pfile cand "$i")"
			i=$((i + 1))
		done
	else
		set -- "$baseline" "$work/cand" --cache "$cache"
		[ -n "$tool" ] && set -- "$@" --tool "$tool"
	fi
	[ -n "$fn" ] && set -- "$@" --function "$fn"
	eval "set -- \"\$@\" $extra"
	"$pd" check "$@" --threshold "$threshold" --color never -f json \
		-o "$work/check.json" 2>"$work/check.err"
}

mode="compared with the runs of $baseline"
[ "$base_rev" != none ] && mode="in turn with $(printf '%.10s' "$base_sha")"
if [ -n "$vg" ]; then
	say "$short: $cache runs$how, $mode, one run a side against a ${threshold} % threshold"
else
	say "$short: $cache runs$how, $mode, until a ${threshold} % threshold decides or $runs runs a side"
fi
if [ "$cache" = warm ] && [ -z "$vg" ]; then
	# warm-up: caches and page cache as in the stored runs
	if [ "$base_rev" != none ] && ! (cd "$bdir" && sh -c "$run") >/dev/null 2>&1; then
		say "the scenario fails on the baseline build: stopping"
		exit 128
	fi
	if ! sh -c "$run" >/dev/null 2>&1; then
		say "$sha: the scenario fails: skipped"
		exit 125
	fi
fi
n=0 look=$first rc=125 exact=no
while [ "$n" -lt "$runs" ]; do
	n=$((n + 1))
	if [ "$base_rev" != none ]; then
		record base "$n"
		r=$?
		[ $r -eq 0 ] || { say "the baseline build failed to record (run $n): stopping"; exit 128; }
	fi
	record cand "$n"
	r=$?
	case $r in
	0) ;;
	125) say "$sha: the scenario fails under the profiler: skipped"; exit 125 ;;
	*) say "recording failed: stopping"; exit 128 ;;
	esac
	[ "$n" -ge "$look" ] || [ "$n" -eq "$runs" ] || continue
	look=$(( (n * 13 + 9) / 10 ))
	check
	rc=$?
	# exact counts: more runs would say the same
	grep -q '"method":[ 	]*"exact"' "$work/check.json" 2>/dev/null && exact=yes
	summary "$work/check.json" | cut -f1 | head -3 | sed "s/^/bisect-perf: $short: $n runs a side: /" >&2
	case $rc in
	0 | 1) break ;;
	125)
		if grep -q "no function matches" "$work/check.err"; then
			cat "$work/check.err" >&2
			break
		fi ;;
	*) cat "$work/check.err" >&2; say "perfdiff check failed ($rc): stopping"; exit 128 ;;
	esac
	[ "$exact" = yes ] && break
done
if [ -n "$keep" ]; then
	mkdir -p "$keep" && rm -rf "${keep:?}/$sha" && mkdir -p "$keep/$sha" &&
		cp -r "$work/cand" "$keep/$sha/" &&
		{ [ "$base_rev" = none ] || cp -r "$work/base" "$keep/$sha/"; }
fi
took=$(( $(date +%s) - started ))
case $rc in
0) say "$sha good after $n runs a side (${took} s)" ;;
1) say "$sha bad after $n runs a side (${took} s)" ;;
*)
	summary "$work/check.json" | cut -f2 | grep . >"$work/need"
	need=$(sed 's/^near //' "$work/need" | grep '^[0-9]' | sort -n | tail -1)
	if grep -q near "$work/need"; then
		say "$sha undecided after $n runs a side (${took} s): skipped; the change lies at the ${threshold} % threshold${need:+ (about $need runs a side would decide it)}: a threshold farther from it decides with fewer runs"
	elif [ -n "$need" ] && [ "$need" -gt "$n" ]; then
		say "$sha undecided after $n runs a side (${took} s): skipped; about $need runs a side would likely decide it ($((need - n)) more: --runs $need)"
	else
		say "$sha undecided after $n runs a side (${took} s): skipped"
	fi
	rc=125
	;;
esac
exit $rc
