#!/bin/sh
# Records the five shape programs of tests/bench/shapes/ for the verdict
# benchmark (tests/bench/shapes.py): phased, interleaved, threads,
# recursion and shortlived. Per shape and round, interleaved: the
# unchanged build A three times (a1, a2, a3), one separately compiled
# identical rebuild (rb), and one run of each planted build:
#   a1 p10 a2 p20 rb p35 a3 m25 [extras]
# (p10/p20/p35: +10/+20/+35 % in the shape's planted function, m25: -25 %;
# recursion adds memp20/memp35, the same in the memory-bound chase
# instead of the CPU-bound kernel; shortlived adds gcp20/gcp35 in the
# bursty collector instead of the steady process_item). Every other round
# (the even ones) a busy loop holds one core and a memory hog competes
# for the memory bus; the script starts and stops both itself.
# Not a test: a measurement.
#
# usage: tests/bench/record_shapes.sh OUTDIR ROUNDS [FREQ]
#   writes OUTDIR/SHAPE/NAME-R.perf.txt (perf script) and NAME-R.folded
#   (the same samples as folded stacks, by tests/bench/shapes_fold.py)
#   SHAPES="phased ...": a subset; START=R: first round (to add rounds
#   to a recording); HOG=0: no background load
set -eu
out=$1 rounds=$2 freq=${3:-1999}
shapes=${SHAPES:-phased interleaved threads recursion shortlived}
start=${START:-1} hogs=${HOG:-1}
here=$(cd "$(dirname "$0")" && pwd)
src=$here/shapes
cc=${CC:-cc}
# frame pointers in leaf functions too, so a leaf's caller is on its stacks
flags="-O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -pthread"
mkdir -p "$out/bin"
# shellcheck disable=SC2086
$cc $flags -o "$out/bin/memhog" "$src/hog/memhog.c"

variants() { # shape: name:function:percent of its planted builds
	echo "p10:1:10 p20:1:20 p35:1:35 m25:1:-25"
	case $1 in
	recursion) echo "memp20:2:20 memp35:2:35" ;;
	shortlived) echo "gcp20:2:20 gcp35:2:35" ;;
	esac
}

for s in $shapes; do
	d=$out/$s/bin
	mkdir -p "$d"
	# shellcheck disable=SC2086
	$cc $flags -o "$d/a" "$src/$s.c"
	# the identical rebuild: the unchanged source compiled again apart
	# shellcheck disable=SC2086
	$cc $flags -o "$d/rb" "$src/$s.c"
	for v in $(variants "$s"); do
		IFS=: read -r name fn pct <<-EOV
			$v
		EOV
		# shellcheck disable=SC2086
		$cc $flags -DPLANT_FN="$fn" -DPLANT_PCT="$pct" -o "$d/$name" "$src/$s.c"
	done
done

hog=
stop() {
	# shellcheck disable=SC2086
	[ -z "$hog" ] || kill $hog 2>/dev/null || true
	hog=
}
trap 'stop' EXIT INT TERM

rec() { # shape, binary name, output name
	perf record -q --no-bpf-event -F "$freq" -g -o "$out/r.data" \
		"$out/$1/bin/$2" >/dev/null 2>&1
	perf script -i "$out/r.data" >"$out/$1/$3.perf.txt.tmp" 2>/dev/null
	mv "$out/$1/$3.perf.txt.tmp" "$out/$1/$3.perf.txt"
}

r=$start
end=$((start + rounds - 1))
while [ "$r" -le "$end" ]; do
	if [ "$hogs" = 1 ] && [ $((r % 2)) = 0 ]; then
		sh -c 'while :; do :; done' &
		hog=$!
		"$out/bin/memhog" &
		hog="$hog $!"
	fi
	for s in $shapes; do
		# shellcheck disable=SC2046 # one word per planted build
		set -- $(variants "$s")
		p10=${1%%:*} p20=${2%%:*} p35=${3%%:*} m25=${4%%:*}
		shift 4
		for x in "a a1" "$p10 $p10" "a a2" "$p20 $p20" "rb rb" \
			"$p35 $p35" "a a3" "$m25 $m25"; do
			# shellcheck disable=SC2086
			set -- $x "$@"
			rec "$s" "$1" "$2-$r"
			shift 2
		done
		for v in "$@"; do
			rec "$s" "${v%%:*}" "${v%%:*}-$r"
		done
	done
	stop
	# the folded stacks, once a round (one interpreter for all files)
	for s in $shapes; do
		python3 "$here/shapes_fold.py" --missing "$out/$s"
	done
	echo "round $r done $(date +%T)" >&2
	r=$((r + 1))
done
rm -f "$out/r.data" "$out/r.data.old"
