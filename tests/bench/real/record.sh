#!/bin/sh
# Records the real-program benchmark (tests/bench/real/README.md): per
# program and round, one run of each build (a, rb, p10, p35, p20, pad) in
# an order drawn anew each round, under `perf record -g`, kept as gzipped
# `perf script` text. The machine's state changes from round to round:
#   quiet  nothing else started here
#   load   one busy loop and one memory hog (tests/bench/shapes/hog)
#   heavy  four of each: a load of about 4.5 times the two cores
# (round r is state r mod 3 of STATES, so that drift over time is spread
# over the states). The script starts and stops the load itself.
# Not a test: a measurement.
#
# usage: tests/bench/real/record.sh WORK ROUNDS [PROGRAM ...]
#   writes WORK/PROGRAM/runs/STATE/BUILD-R.perf.txt.gz and appends a line
#   per run to WORK/PROGRAM/runs/runs.tsv (state, round, build, wall and
#   CPU seconds, load average). FREQ (1999), STATES ("quiet load heavy")
#   and START (first round, 1) are read from the environment.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(cd "$1" && pwd)
rounds=$2
shift 2
progs=${*:-$(python3 "$here/programs.py" list)}
freq=${FREQ:-1999}
states=${STATES:-quiet load heavy}
start=${START:-1}
builds="a rb p10 p35 p20 pad"
mkdir -p "$work/bin"
[ -x "$work/bin/memhog" ] ||
	cc -O2 -o "$work/bin/memhog" "$here/../shapes/hog/memhog.c"

hogs=
stop() {
	# shellcheck disable=SC2086
	[ -z "$hogs" ] || kill $hogs 2>/dev/null || true
	hogs=
	sleep 1
}
trap 'stop' EXIT INT TERM
load() { # N: N busy loops and N memory hogs
	i=0
	while [ "$i" -lt "$1" ]; do
		sh -c 'while :; do :; done' &
		hogs="$hogs $!"
		"$work/bin/memhog" &
		hogs="$hogs $!"
		i=$((i + 1))
	done
	sleep 2
}

nstates=$(echo "$states" | wc -w)
r=$start
end=$((start + rounds - 1))
while [ "$r" -le "$end" ]; do
	k=$(((r - 1) % nstates + 1))
	state=$(echo "$states" | cut -d' ' -f"$k")
	case $state in
	quiet) ;;
	load) load 1 ;;
	heavy) load 4 ;;
	*) echo "record.sh: unknown state $state" >&2 && exit 2 ;;
	esac
	for p in $progs; do
		d=$work/$p/runs/$state
		mkdir -p "$d"
		# a fresh order each round, the same on every machine
		order=$(python3 -c 'import random, sys
b = sys.argv[2:]
random.Random(sys.argv[1]).shuffle(b)
print(" ".join(b))' "$p-$r" $builds)
		for b in $order; do
			# every build runs from one path under one name: the
			# length of argv[0] moves the stack, and with it a
			# program's speed (two identical binaries at bin/a and
			# bin/rb differed by a third in expat's hash)
			mkdir -p "$work/run/$p"
			cp "$work/$p/bin/$b" "$work/run/$p/$p.tmp"
			mv "$work/run/$p/$p.tmp" "$work/run/$p/$p"
			cmd=$(python3 "$here/programs.py" run "$p" "$work" "$b" |
				sed "s|^$work/$p/bin/$b|$work/run/$p/$p|")
			la=$(cut -d' ' -f1 /proc/loadavg)
			t0=$(date +%s.%N)
			perf record -q --no-bpf-event -F "$freq" -g \
				-o "$work/r.data" -- sh -c "$cmd >/dev/null" \
				2>"$work/r.err" || {
				cat "$work/r.err" >&2
				exit 2
			}
			t1=$(date +%s.%N)
			perf script -i "$work/r.data" 2>/dev/null |
				gzip -c >"$d/$b-$r.perf.txt.gz.tmp"
			mv "$d/$b-$r.perf.txt.gz.tmp" "$d/$b-$r.perf.txt.gz"
			printf '%s\t%s\t%s\t%s\t%s\n' "$state" "$r" "$b" \
				"$(echo "$t1 - $t0" | bc)" "$la" \
				>>"$work/$p/runs/runs.tsv"
		done
	done
	stop
	echo "round $r ($state) done $(date +%T)" >&2
	r=$((r + 1))
done
rm -f "$work/r.data" "$work/r.data.old" "$work/r.err"
