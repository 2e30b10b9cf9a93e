#!/bin/sh
# --sort orders the text report's rows: by impact (default), by the size
# of the self or total change, or by the candidate total (cum, as pprof
# -cum). Three regressions whose order differs by key, counted by hand.
# b's +18 % (10000 -> 11800) is judged beyond e, the one function that
# did not move: se = sqrt(1.5 (1/10000 + 1/11800) + 2 (0.02)^2 + e's own
# 1.5 (2/20000) + 2 (0.02)^2) = 0.045, and its 95 % interval (t on 6 df)
# starts at 1.18 / exp(2.447 x 0.045) = 1.06, clear of 5 %.
. "$(dirname "$0")/lib.sh"
printf 'main;a 1000\nmain;b 10000\nmain;c;d 4000\nmain;e 20000\n' >"$T/a.folded"
printf 'main;a 3000\nmain;b 11800\nmain;c;d 8000\nmain;e 20000\n' >"$T/b.folded"
expect_exit 1 pd --sample-weight 1 "$T/a.folded" "$T/b.folded"
# impact: d +4000, a +2000, b +1800
got=$(grep -o '^ *[^ ].* \(a\|b\|d\)$' "$T/out" | awk '{print $NF}' | tr '\n' ' ')
[ "$got" = "d a b " ] && ok || not_ok "default order: $got"
expect_exit 1 pd --sample-weight 1 --sort cum "$T/a.folded" "$T/b.folded"
# cum: b 11800, d 8000, a 3000
got=$(grep -o '^ *[^ ].* \(a\|b\|d\)$' "$T/out" | awk '{print $NF}' | tr '\n' ' ')
[ "$got" = "b d a " ] && ok || not_ok "--sort cum order: $got"
expect_exit 1 pd --sample-weight 1 --sort self "$T/a.folded" "$T/b.folded"
got=$(grep -o '^ *[^ ].* \(a\|b\|d\)$' "$T/out" | awk '{print $NF}' | tr '\n' ' ')
[ "$got" = "d a b " ] && ok || not_ok "--sort self order: $got"
expect_exit 2 pd --sort size "$T/a.folded" "$T/b.folded"
expect_grep 'sort wants impact, self, total or cum' "$T/err"
finish
