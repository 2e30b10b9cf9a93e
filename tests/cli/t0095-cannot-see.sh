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
# A function that moved past the threshold without a verdict is not
# "unchanged": 100 -> 125 samples (+25 %, 2.3 % of the total), judged
# beyond hot (which did not move), gives t = ln(125.5/100.5) /
# sqrt(1.5 (1/100.5 + 1/125.5) + 2 (0.02)^2 + hot's own 1.5 (2/1000.5)
# + 2 (0.02)^2) = 1.25 on 6 df; the headline counts it and a line names
# it (tiny's +4 samples are under --min-impact).
printf 'main;hot 1000\nmain;sm|all<b> 100\nmain;tiny 10\n' >"$T/u1.folded"
printf 'main;hot 1000\nmain;sm|all<b> 125\nmain;tiny 14\n' >"$T/u2.folded"
expect_exit 0 pd --sample-weight 1 "$T/u1.folded" "$T/u2.folded"
expect_grep "^inconclusive: no change shown beyond the threshold (1 function moved past it, undecided); total" "$T/out"
expect_grep "^undecided: sm|all<b> +25.0 % (MDE [0-9]* %); the data cannot tell them from noise" "$T/out"
expect_no_grep "tiny" "$T/out"
expect_exit 0 pd -f md --sample-weight 1 "$T/u1.folded" "$T/u2.folded"
expect_grep "^Undecided, past the threshold but not told from noise (record longer or repeat runs): <code>sm&#124;all&#60;b&#62;</code> +25.0 % (MDE" "$T/out"
# A function on one side only is a change of its own time: 300 samples
# of b appear (main's total +30 %), or disappear. No machine makes new
# work: the verdict is b's, though main's total, judged with the whole
# program's 20 % run-to-run variation, cannot tell +30 % from one pair.
printf 'main;a 1000\n' >"$T/o1.folded"
printf 'main;a 1000\nmain;b 300\n' >"$T/o2.folded"
expect_exit 1 pd --sample-weight 1 "$T/o1.folded" "$T/o2.folded"
expect_grep "^regressed: b added, total +30.0 % (CI .*); 1 function added$" "$T/out"
expect_exit 0 pd --sample-weight 1 "$T/o2.folded" "$T/o1.folded"
expect_grep "^improved: b removed, total -23.1 % (CI .*); 1 function removed$" "$T/out"
# renamed: b's time is x's; added and removed at once, no new work
printf 'main;a 1000\nmain;x 300\n' >"$T/o3.folded"
expect_exit 0 pd --sample-weight 1 "$T/o2.folded" "$T/o3.folded"
expect_grep "^inconclusive: 1 function added, 1 function removed; total +0.0 %" "$T/out"
# Nothing moved past the threshold, but hot (1000 samples, 90 % of the
# program, judged beyond the program's shift) can only show a change
# above 125 %: that is said, not "no function changed".
expect_exit 0 pd --sample-weight 1 "$T/u1.folded" "$T/u1.folded"
expect_grep "^inconclusive: too few samples to show a change: not even a doubling" "$T/out"
# One sample a side: the same, where "same" or "no change" misled.
printf 'main;foo 1\n' >"$T/one.folded"
expect_exit 0 pd "$T/one.folded" "$T/one.folded"
expect_grep "^inconclusive: too few samples to show a change" "$T/out"
# A profile against itself, well sampled (MDE 8 %): identical, said so.
printf 'main;a 40000\nmain;b 40000\nmain;c 40000\nmain;d 40000\n' >"$T/id.folded"
expect_exit 0 pd --sample-weight 1 "$T/id.folded" "$T/id.folded"
expect_grep "^inconclusive: the two profiles are identical, function by function; total +0.0 %" "$T/out"
# Nothing moved past the threshold between two profiles: as before.
printf 'main;a 40000\nmain;b 40100\nmain;c 39900\nmain;d 40000\n' >"$T/id2.folded"
expect_exit 0 pd --sample-weight 1 "$T/id.folded" "$T/id2.folded"
expect_grep "no function changed beyond the threshold" "$T/out"
expect_no_grep "undecided" "$T/out"
finish
