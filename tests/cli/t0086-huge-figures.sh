#!/bin/sh
# A figure past 10 000 % says nothing a reader can use: one sample a side
# can only show changes above 14 198 %, which reads "above 10000 %" (an
# undecided function's MDE past it reads "MDE over 10000 %").
. "$(dirname "$0")/lib.sh"
printf 'main;a 1\n' >"$T/one.folded"
expect_exit 0 pd "$T/one.folded" "$T/one.folded"
expect_grep "warning: profiles too short for a 5 % threshold: even the best-sampled function can only show changes above 10000 % (record" "$T/out"
finish
