#!/bin/sh
# -o never damages what it replaces: a symbolic link, a FIFO or a folder
# is refused (as root, -o /dev/null replaced /dev/null with a file); a
# file replaced keeps its mode; -o - is standard output for text formats
# and an error for XLSX (it wrote a file named "-"); a signal during the
# write leaves no temporary file behind.
. "$(dirname "$0")/lib.sh"
D=$PD_ROOT/fixtures/demo
cd "$T" || exit 1
printf 'keep me\n' >"$T/target"
ln -s "$T/target" "$T/link"
expect_exit 2 pd -f md -o "$T/link" "$D/base.perf.txt.gz" "$D/cand.perf.txt.gz"
expect_lines 1 "$T/err"
expect_grep "link is a symbolic link: -o does not write through links" "$T/err"
[ -L "$T/link" ] && [ "$(cat "$T/target")" = "keep me" ] && ok || not_ok "the link or its target changed"
mkfifo "$T/fifo"
expect_exit 2 with_timeout 20 "$PERFDIFF" -f md -o "$T/fifo" "$D/base.perf.txt.gz" "$D/cand.perf.txt.gz"
expect_grep "fifo is a FIFO, not a file: -o writes files" "$T/err"
[ -p "$T/fifo" ] && ok || not_ok "the FIFO was replaced"
mkdir "$T/dir"
expect_exit 2 pd -f json -o "$T/dir" "$D/base.perf.txt.gz" "$D/cand.perf.txt.gz"
expect_grep "dir is a folder, not a file" "$T/err"
# A report replaced keeps the file's mode (0600 stays 0600, not 0644).
printf 'old\n' >"$T/r.md" && chmod 0600 "$T/r.md"
expect_exit 1 pd -f md -o "$T/r.md" "$D/base.perf.txt.gz" "$D/cand.perf.txt.gz"
mode=$(python3 -c 'import os, sys; print(oct(os.stat(sys.argv[1]).st_mode & 0o777))' "$T/r.md")
[ "$mode" = 0o600 ] && ok || not_ok "mode $mode after -o, want 0o600"
expect_grep "regressed" "$T/r.md"
# A new file gets the umask's permissions, as before.
(umask 022 && "$PERFDIFF" -f md -o "$T/new.md" "$D/base.perf.txt.gz" "$D/cand.perf.txt.gz" >/dev/null 2>&1)
mode=$(python3 -c 'import os, sys; print(oct(os.stat(sys.argv[1]).st_mode & 0o777))' "$T/new.md")
[ "$mode" = 0o644 ] && ok || not_ok "new file mode $mode, want 0o644"
# -o -: standard output for text, an error for XLSX (no file "-").
expect_exit 1 pd -f json -o - "$D/base.perf.txt.gz" "$D/cand.perf.txt.gz"
expect_grep '"verdict"' "$T/out"
expect_exit 2 pd -f xlsx -o - "$D/base.perf.txt.gz" "$D/cand.perf.txt.gz"
expect_grep "o -: this format is a file, not a stream" "$T/err"
[ ! -e "$T/-" ] && ok || not_ok "xlsx wrote a file named -"
# Interrupted while writing a large report: nothing left but what was.
python3 - "$T" <<'PY'
import sys
t = sys.argv[1]
for side, k in (("a", 1), ("b", 2)):
    with open("%s/big-%s.folded" % (t, side), "w") as f:
        for i in range(60000):
            f.write("main;mod%d;fn%d %d\n" % (i % 97, i, k * (i % 13 + 1)))
PY
i=0
while [ $i -lt 3 ]; do
	"$PERFDIFF" --sample-weight 1 -f html -o "$T/big.html" "$T/big-a.folded" "$T/big-b.folded" >/dev/null 2>&1 &
	pid=$!
	sleep 0.$((3 + i * 3))
	kill -TERM "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	i=$((i + 1))
done
left=$(ls "$T" | grep -c '\.tmp\.')
[ "$left" -eq 0 ] && ok || not_ok "$left temporary files left after SIGTERM"
# Warnings go to stderr and into the text report; when both are one
# pipe or file (2>&1) a warning shows once, not twice.
printf 'main;a 1000\n' >"$T/w1.folded"
printf 'main;a 1000\nmain;b 300\n' >"$T/w2.folded"
$PD_WRAP "$PERFDIFF" --sample-weight 1 "$T/w1.folded" "$T/w2.folded" >"$T/both" 2>&1
n=$(grep -c "warning: one run per side" "$T/both")
[ "$n" -eq 1 ] && ok || not_ok "2>&1: the warning shows $n times"
$PD_WRAP "$PERFDIFF" --sample-weight 1 "$T/w1.folded" "$T/w2.folded" 2>&1 | grep -c "warning: one run per side" >"$T/n"
[ "$(cat "$T/n")" -eq 1 ] && ok || not_ok "a pipe: the warning shows $(cat "$T/n") times"
$PD_WRAP "$PERFDIFF" --sample-weight 1 "$T/w1.folded" "$T/w2.folded" >"$T/o" 2>"$T/e"
[ "$(grep -c "warning: one run per side" "$T/o")" -eq 1 ] &&
	[ "$(grep -c "warning: one run per side" "$T/e")" -eq 1 ] && ok ||
	not_ok "apart: the warning not in both"
finish
