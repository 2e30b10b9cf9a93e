#!/bin/sh
# bundle init runs its helper programs (git, cc, rustc) without a shell:
# folder names with blanks, quotes and `$(...)` are passed as they are,
# never run; cc and rustc are stand-ins on PATH that log their arguments
# and their parent, which must be perfdiff, not a shell. A helper that
# fails leaves its field out; only the first line of its output counts.
. "$(dirname "$0")/lib.sh"
command -v git >/dev/null || { echo "git not installed: skipped"; exit 77; }
cd "$T" || exit 1
mkdir bin
for tool in cc rustc; do
	cat >"bin/$tool" <<'SH'
#!/bin/sh
parent=unknown
[ -r /proc/$PPID/comm ] && parent=$(cat /proc/$PPID/comm)
printf '%s %s [%s]\n' "$(basename "$0")" "$*" "$parent" >>"$PD_TOOL_LOG"
case "$(basename "$0") $*" in
"cc --version") printf 'fakecc 1.0 $(touch pwned)\nsecond line\n' ;;
"cc -dumpmachine") printf 'x86_64-test-linux\n' ;;
*) echo "no"; exit 3 ;;
esac
SH
	chmod +x "bin/$tool"
done
export PD_TOOL_LOG="$T/tools.log"
repo="$T/r \$(touch pwned) 'q\" \`touch pwned\`"
dir="$T/b \$(touch pwned) 'q\"; touch pwned"
mkdir "$repo" && git -C "$repo" init -q &&
	git -C "$repo" -c user.name=t -c user.email=t@e commit -q --allow-empty -m one
head_sha=$(git -C "$repo" rev-parse HEAD)
PATH="$T/bin:$PATH" expect_exit 0 pd bundle init "$dir" --scenario s \
	--cache warm --repo "$repo"
[ -f "$dir/build_meta.json" ] && ok || not_ok "no build_meta.json in '$dir': $(ls "$T")"
found=$(find "$T" -name pwned)
[ -z "$found" ] && ok || not_ok "a name was run by a shell: $found"
if python3 - "$dir/build_meta.json" "$head_sha" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
assert m["git_sha"] == sys.argv[2], m
assert m["compiler"] == "fakecc 1.0 $(touch pwned)", m
assert m["target"] == "x86_64-test-linux", m
assert "rustc" not in m, m
PY
then ok; else not_ok "build_meta.json: $(cat "$dir/build_meta.json")"; fi
# each helper once, with exactly its arguments, started by perfdiff itself
expect_grep '^cc --version \[' "$T/tools.log"
expect_grep '^cc -dumpmachine \[' "$T/tools.log"
expect_grep '^rustc -V \[' "$T/tools.log"
expect_lines 3 "$T/tools.log"
if grep -Eq '\[(sh|dash|bash|ash|ksh|mksh|zsh|busybox)\]$' "$T/tools.log"; then
	not_ok "a helper was started by a shell: $(cat "$T/tools.log")"
else ok; fi
finish
