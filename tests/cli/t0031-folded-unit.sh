#!/bin/sh
# --folded-unit: a folded file whose numbers are time, as bcc's
# offcputime -f writes microseconds waited per stack (docs/formats.md,
# "Folded stacks"). Counted by hand: 2 301 200 + 1 500 us = 2 302.7 ms.
. "$(dirname "$0")/lib.sh"
printf 'app;main;read_file;read 2301200\napp;main;nap;clock_nanosleep 1500\n' >"$T/a.folded"
printf 'app;main;read_file;read 4602400\napp;main;nap;clock_nanosleep 1500\n' >"$T/b.folded"
# as samples, the default: the numbers as they are
expect_exit 0 pd show "$T/a.folded"
expect_grep "folded, 2302700 samples, total 2302700 samples" "$T/out"
expect_exit 0 pd show --folded-unit us "$T/a.folded"
expect_grep "folded, 2303 samples, total 2302.700 ms" "$T/out"
expect_grep "2301.200  99.93%     2301.200  99.93%  read$" "$T/out"
expect_exit 0 pd show --folded-unit ms -f json "$T/a.folded"
expect_grep '"total":.2301200000000' "$T/out"
expect_grep "sample counts = ms (one sample a ms)" "$T/out"
# --sample-weight in the file's unit: one sample is 500 us
expect_exit 0 pd show --folded-unit us --sample-weight 500 -f json "$T/a.folded"
expect_grep '"samples":.4605.4' "$T/out"
# a diff in time: read's waiting doubled, +2 301.2 ms
expect_exit 1 pd --folded-unit us "$T/a.folded" "$T/b.folded"
expect_grep "regressed.*+100.0 %.*2301.200.*4602.400.*read" "$T/out"
expect_exit 2 pd show --folded-unit parsecs "$T/a.folded"
expect_grep "error: --folded-unit wants samples, ns, us, ms or s" "$T/err"
finish
