#!/bin/sh
# Marks the current checkout good, bad or skip for `git bisect run`, by
# profiling it and comparing with a stored (or bundled) baseline.
#
#   git bisect start BAD GOOD
#   git bisect run /path/to/scripts/bisect-perf.sh \
#       --build 'make -j4' --run './app --input data.bin' \
#       --baseline db:GOOD:SCENARIO:warm --db perfdiff.db [--function REGEX]
#
# Steps: build (a failed build skips the commit: exit 125); one warm-up run;
# RUNS profiled runs with `perf record -g` (or --profile CMD, which must
# write one profile to "$PD_PROFILE_OUT" per run); a bundle of them; then
# `perfdiff check BASELINE BUNDLE`. Exit 0 good, 1 bad, 125 skip, 128 stop.
#
# Options:
#   --build CMD      build command, run in the checkout (sh -c)
#   --run CMD        the scenario's command (sh -c), profiled
#   --baseline SPEC  db:REV:SCENARIO[:CACHE] or a bundle folder
#   --db DB          history: SQLite file or postgresql:// URL (default $PERFDIFF_DB)
#   --function RE    decide on these functions only
#   --runs N         profiled runs (default 3)
#   --freq HZ        perf sampling frequency (default 999)
#   --profile CMD    profiling command instead of perf record
#   --keep DIR       keep the bundle under DIR/<sha> (default: removed)
#   --perfdiff BIN   the perfdiff binary (default: perfdiff on PATH)
#   -- ARGS          further options for perfdiff check
set -u

build= run= baseline= fn= runs=3 freq=999 profile= keep= pd=${PERFDIFF:-perfdiff}
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$2; shift 2 ;;
	--run) run=$2; shift 2 ;;
	--baseline) baseline=$2; shift 2 ;;
	--db) PERFDIFF_DB=$2; export PERFDIFF_DB; shift 2 ;;
	--function) fn=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--freq) freq=$2; shift 2 ;;
	--profile) profile=$2; shift 2 ;;
	--keep) keep=$2; shift 2 ;;
	--perfdiff) pd=$2; shift 2 ;;
	--) shift; break ;;
	*) echo "bisect-perf: unknown option $1" >&2; exit 128 ;;
	esac
done
if [ -z "$run" ] || [ -z "$baseline" ]; then
	echo "bisect-perf: --run and --baseline are required" >&2
	exit 128
fi
sha=$(git rev-parse HEAD) || exit 128
scenario=bisect
case $baseline in
db:*:*) scenario=$(printf '%s' "$baseline" | cut -d: -f3) ;;
esac

if [ -n "$build" ] && ! sh -c "$build" >&2; then
	echo "bisect-perf: $sha does not build: skipped" >&2
	exit 125
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/bisect-perf.XXXXXX") || exit 128
trap 'rm -rf "$work"' EXIT
bundle=$work/bundle
mkdir -p "$bundle/profiles"
printf '{"git_sha": "%s", "scenario": "%s", "cache": "warm"}\n' \
	"$sha" "$scenario" >"$bundle/build_meta.json"

# warm-up: caches and page cache as in the stored runs
if ! sh -c "$run" >/dev/null 2>&1; then
	echo "bisect-perf: $sha: the scenario fails: skipped" >&2
	exit 125
fi
i=1
while [ "$i" -le "$runs" ]; do
	if [ -n "$profile" ]; then
		PD_PROFILE_OUT=$bundle/profiles/run-$i
		export PD_PROFILE_OUT
		sh -c "$profile" >/dev/null || { echo "bisect-perf: profiling failed: skipped" >&2; exit 125; }
	else
		perf record -q -g -F "$freq" -o "$work/perf.data" -- sh -c "$run" >/dev/null 2>&1 ||
			{ echo "bisect-perf: perf record failed: skipped" >&2; exit 125; }
		perf script -i "$work/perf.data" >"$bundle/profiles/perf.script.$i.txt" 2>/dev/null ||
			{ echo "bisect-perf: perf script failed" >&2; exit 128; }
		rm -f "$work/perf.data"
	fi
	i=$((i + 1))
done
if [ -n "$keep" ]; then
	mkdir -p "$keep" && rm -rf "${keep:?}/$sha" && cp -r "$bundle" "$keep/$sha"
fi

if [ -n "$fn" ]; then
	"$pd" check "$baseline" "$bundle" --function "$fn" --color never "$@"
else
	"$pd" check "$baseline" "$bundle" --color never "$@"
fi
rc=$?
case $rc in
0) echo "bisect-perf: $sha good" >&2 ;;
1) echo "bisect-perf: $sha bad" >&2 ;;
125) echo "bisect-perf: $sha inconclusive: skipped" >&2 ;;
*) echo "bisect-perf: perfdiff check failed ($rc): stopping" >&2; rc=128 ;;
esac
exit $rc
