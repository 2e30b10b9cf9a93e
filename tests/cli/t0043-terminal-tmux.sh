#!/bin/sh
# The terminal sink checked in a real terminal emulator: tmux runs
# perfdiff on names that carry a screen clear, a title change, a cursor
# move, a bell, a carriage return and a bidi override, and its pane must
# show them as text, with the lines before them still on the screen and
# the window title untouched (t0042 checks the bytes; this, what a
# terminal makes of them).
. "$(dirname "$0")/lib.sh"
command -v tmux >/dev/null || { echo "tmux not installed: skipped"; exit 77; }
# speedscope, whose names may hold ';' (an OSC title needs one)
python3 - "$T/evil.json" <<'PY'
import json, sys
names = ["main", "clear\x1b[2J\x1b[Hx", "title\x1b]2;PWNED\x07y", "cr\rOVER",
         "bidi\u202etxt.exe", "mark_line"]
doc = {"$schema": "https://www.speedscope.app/file-format-schema.json",
       "shared": {"frames": [{"name": n} for n in names]},
       "profiles": [{"type": "sampled", "name": "p", "unit": "none",
                     "startValue": 0, "endValue": 150,
                     "samples": [[0, 1], [0, 2], [0, 3], [0, 4], [0, 5]],
                     "weights": [50, 40, 30, 20, 10]}]}
json.dump(doc, open(sys.argv[1], "w"))
PY
sock="$T/tmux.sock"
cat >"$T/run.sh" <<EOF
#!/bin/sh
echo BEFORE-PERFDIFF
$PD_WRAP "$PERFDIFF" show "$T/evil.json"
echo AFTER-PERFDIFF
sleep 30
EOF
chmod +x "$T/run.sh"
tmux -S "$sock" -f /dev/null new-session -d -x 160 -y 50 -s pd "$T/run.sh"
i=0
while [ $i -lt 100 ]; do
	tmux -S "$sock" capture-pane -p -t pd >"$T/pane" 2>/dev/null
	grep -q AFTER-PERFDIFF "$T/pane" && break
	sleep 0.1
	i=$((i + 1))
done
title=$(tmux -S "$sock" display-message -p -t pd '#{pane_title}')
tmux -S "$sock" kill-server 2>/dev/null
# nothing cleared the screen: the line printed before perfdiff is there
expect_grep "^BEFORE-PERFDIFF" "$T/pane"
expect_grep "^AFTER-PERFDIFF" "$T/pane"
# each escape shown as text, the name after it on the same line
expect_grep 'clear\\x1b\[2J\\x1b\[Hx' "$T/pane"
expect_grep 'title\\x1b\]2;PWNED\\x07y' "$T/pane"
expect_grep 'cr\\x0dOVER' "$T/pane"
expect_grep 'bidi\\u202etxt.exe' "$T/pane"
expect_grep 'mark_line' "$T/pane"
# the title was not set by the profile's names
case $title in *PWNED*) not_ok "the pane title was set: $title" ;; *) ok ;; esac
finish
