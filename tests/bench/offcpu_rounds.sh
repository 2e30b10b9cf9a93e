#!/bin/sh
# Records the off-CPU workload (fixtures/workload/offcpu.c) for the
# waiting-time figures of docs/statistics.md ("Waiting time"): per round,
# in an order drawn anew, the unchanged build twice (base, again: the
# A/A pair), the build whose sleep is 1.5 ms, not 1 (wait), and the one
# whose compute() does 30 % more (cpu), each as perf.data with CPU
# samples, context switches and wakeups. Every even round two busy loops
# run beside it, started and stopped here. Not a test: a measurement;
# tests/bench/offcpu_score.py scores it.
#
# usage: tests/bench/offcpu_rounds.sh OUTDIR ROUNDS
set -eu
out=$1 rounds=$2
here=$(cd "$(dirname "$0")" && pwd)
src=$here/../../fixtures/workload/offcpu.c
cc=${CC:-cc}
flags="-O2 -g -fno-omit-frame-pointer -pthread"
mkdir -p "$out"
$cc $flags -o "$out/base" "$src"
$cc $flags -DNAP_US=1500 -o "$out/wait" "$src"
$cc $flags -DWORK=2600000 -o "$out/cpu" "$src"
i=1
while [ "$i" -le "$rounds" ]; do
	pids=
	if [ $((i % 2)) -eq 0 ]; then
		for _ in 1 2; do
			(while :; do :; done) &
			pids="$pids $!"
		done
	fi
	for b in $(printf 'base\nagain\nwait\ncpu\n' | shuf); do
		bin=$b
		[ "$b" = again ] && bin=base
		perf record -q -g -e cpu-clock/freq=1999/ -e sched:sched_switch \
			-e sched:sched_wakeup --switch-events \
			-o "$out/$b-$i.data" "$out/$bin" >/dev/null 2>&1
	done
	# shellcheck disable=SC2086
	[ -z "$pids" ] || kill $pids 2>/dev/null || true
	echo "round $i of $rounds$([ -n "$pids" ] && echo ', loaded')"
	i=$((i + 1))
done
