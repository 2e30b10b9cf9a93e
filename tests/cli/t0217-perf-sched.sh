#!/bin/sh
# perf script of `perf record -e sched:sched_switch -g` (a sample as this
# machine's perf 6.1 wrote it): each sample is a context switch, and the
# profile says it counts switches, not time (docs/formats.md, "Linux
# perf").
. "$(dirname "$0")/lib.sh"
cat >"$T/sw.txt" <<'PERF'
sleep  2045 [001] 42334.687367: sched:sched_switch: prev_comm=sleep prev_pid=2045 prev_prio=120 prev_state=S ==> next_comm=perf next_pid=2009 next_prio=120
	ffffffff82267448 __schedule+0x628 ([kernel.kallsyms])
	ffffffff82267db3 schedule+0x23 ([kernel.kallsyms])
	ffffffff8226ee1e do_nanosleep+0x5e ([kernel.kallsyms])
	           cf503 clock_nanosleep@GLIBC_2.2.5+0x23 (/usr/lib/x86_64-linux-gnu/libc.so.6)

sleep  2045 [001] 42334.887501: sched:sched_switch: prev_comm=sleep prev_pid=2045 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
	ffffffff82267448 __schedule+0x628 ([kernel.kallsyms])
	ffffffff82267db3 schedule+0x23 ([kernel.kallsyms])
	ffffffff8226ee1e do_nanosleep+0x5e ([kernel.kallsyms])
	           cf503 clock_nanosleep@GLIBC_2.2.5+0x23 (/usr/lib/x86_64-linux-gnu/libc.so.6)

PERF
expect_exit 0 pd show "$T/sw.txt"
expect_grep "event sched:sched_switch counts scheduler events, not time: each sample is one context switch" "$T/err"
expect_grep "perf-script, 2 samples, total 2 samples" "$T/out"
finish
