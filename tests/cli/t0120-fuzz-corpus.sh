#!/bin/sh
# The fuzz corpus kept in the tree (fixtures/fuzz/TARGET, grown by
# scripts/fuzz.sh) replayed through the binary: every input is read to a
# profile or refused with one error line, exit 0 or 2, never a crash or a
# sanitizer report (the suite's sanitizer pass runs this too).
. "$(dirname "$0")/lib.sh"
n=0
for f in "$PD_ROOT"/fixtures/fuzz/*/*; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	pd show -f json "$f" >"$T/out" 2>"$T/err"
	st=$?
	if [ "$st" -eq 0 ] || { [ "$st" -eq 2 ] && [ "$(wc -l <"$T/err")" -le 3 ]; }; then ok; else
		not_ok "$f: exit $st: $(head -c 300 "$T/err")"
	fi
done
[ "$n" -gt 0 ] && ok || not_ok "no fuzz corpus in fixtures/fuzz"
echo "replayed $n inputs"
finish
