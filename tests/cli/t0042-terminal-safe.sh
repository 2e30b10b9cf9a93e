#!/bin/sh
# Names and paths go to a terminal without its control sequences: ESC,
# BEL and the C1 controls as UTF-8 encodes them (U+009B is a command
# start to some terminals) come out as '?' in show's and diff's text and
# in the one-line messages on stderr.
. "$(dirname "$0")/lib.sh"
esc=$(printf '\033')
printf 'main;evil%s]0;pwned\007name 100\nmain;c1\302\23331m 40\nmain;ok 50\n' "$esc" >"$T/a.folded"
printf 'main;evil%s]0;pwned\007name 300\nmain;c1\302\23331m 40\nmain;ok 50\n' "$esc" >"$T/b.folded"
# control bytes but newline, and the UTF-8 C1 controls
nocontrol() {
	if python3 - "$1" <<'PY'; then ok; else not_ok "$2: control characters in $1"; fi
import re, sys
data = open(sys.argv[1], "rb").read()
bad = re.findall(rb"[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]", data)
assert not bad, bad[:5]
PY
}
expect_exit 0 pd show "$T/a.folded"
nocontrol "$T/out" "show"
expect_grep "pwned?name" "$T/out"
expect_grep "c1?31m" "$T/out"
expect_exit 1 pd --sample-weight 1 "$T/a.folded" "$T/b.folded"
nocontrol "$T/out" "diff"
nocontrol "$T/err" "diff warnings"
# a path with an escape sequence, quoted in an error message
expect_exit 2 pd show "$T/no${esc}[31mfile"
nocontrol "$T/err" "error message"
expect_lines 1 "$T/err"
finish
