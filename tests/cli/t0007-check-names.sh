#!/bin/sh
# A failed check names itself (tests/README.md, "Adding a test"): under
# bash, the script's line that made it and the comment above that line,
# "via N" with the line inside a helper of the script; a check before any
# comment of its own is named by the header's first line; a "#" inside
# a here-document is not a comment. Under another shell, the script's
# name alone. The lines are counted by hand in the script written here.
. "$(dirname "$0")/lib.sh"
command -v bash >/dev/null || { echo "bash not installed: skipped"; exit 77; }
mkdir -p "$T/s"
cp "$PD_ROOT/tests/cli/lib.sh" "$T/s/lib.sh"
cat >"$T/s/t9999-names.sh" <<'SH'
#!/bin/sh
# The header says what the test checks.
. "$(dirname "$0")/lib.sh"
not_ok "first"
# the second group: grep finds nothing
cat >"$T/f" <<'PY'
# not a title
PY
expect_grep "nothing" "$T/f"
helper() {
	# inside the helper
	not_ok "third"
}
# the helper called
helper
finish
SH
(PERFDIFF=/bin/true bash "$T/s/t9999-names.sh" >"$T/out" 2>"$T/err")
expect_lines 3 "$T/err"
expect_grep "^FAIL: t9999-names.sh:4 (The header says what the test checks.): first$" "$T/err"
expect_grep "^FAIL: t9999-names.sh:9 (the second group: grep finds nothing): 'nothing' not found" "$T/err"
expect_grep "^FAIL: t9999-names.sh:15 (the helper called) via 12: third$" "$T/err"
expect_grep "^0 passed, 3 failed$" "$T/out"
if command -v dash >/dev/null; then
	(PERFDIFF=/bin/true dash "$T/s/t9999-names.sh" >"$T/out" 2>"$T/err")
	expect_grep "^FAIL: t9999-names.sh: first$" "$T/err"
fi
finish
