#!/bin/sh
# perfdiff says when it cannot see: stacks cut short by frame-pointer-less
# code (most samples' outermost frame is no thread start), and two
# profiles that share almost none of their time. Counts made here.
. "$(dirname "$0")/lib.sh"

# samples FILE N OUTERMOST: N perf samples, leaf work <- OUTERMOST.
samples() {
	i=0
	while [ $i -lt "$2" ]; do
		printf 'app  7  10.%06d:    1000000 cpu-clock:pppH: \n\t  1000 work+0x1 (/opt/app)\n\t%s\n\n' "$i" "$3" >>"$1"
		i=$((i + 1))
	done
}
# 120 samples reach _start through main; 80 stop in an unknown frame.
samples "$T/cut.txt" 120 '  1100 main+0x2 (/opt/app)
	  1200 _start+0x3 (/opt/app)'
samples "$T/cut.txt" 80 '  7f00 [unknown] ([unknown])'
expect_exit 0 pd show "$T/cut.txt"
expect_grep "40 % of the samples' stacks stop short of a thread's start" "$T/out"
expect_grep "perf record --call-graph dwarf" "$T/out"
# 190 of 200 rooted (kernel and thread starts count): no warning.
samples "$T/whole.txt" 150 '  1100 main+0x2 (/opt/app)'
samples "$T/whole.txt" 30 '  2000 start_thread+0x1 (/usr/lib/libc.so.6)'
samples "$T/whole.txt" 10 'ffffffff81000000 ret_from_fork+0x1 ([kernel.kallsyms])'
samples "$T/whole.txt" 10 '  7f00 [unknown] ([unknown])'
expect_exit 0 pd show "$T/whole.txt"
expect_no_grep "stop short" "$T/out"

# Two unrelated profiles: the shared functions hold little of either.
printf 'a;b;c 1000\na;d 50\n' >"$T/x.folded"
printf 'p;q;r 1000\np;d 50\n' >"$T/y.folded"
expect_exit 0 pd --sample-weight 1 "$T/x.folded" "$T/y.folded"
expect_grep "the functions both profiles have hold only 5 % of the baseline's time and 5 % of the candidate's" "$T/err"
# One program: no such warning.
printf 'a;b;c 1000\na;d 50\n' >"$T/x2.folded"
expect_exit 0 pd --sample-weight 1 "$T/x.folded" "$T/x2.folded"
expect_no_grep "functions both profiles have" "$T/err"
finish
