#!/bin/sh
# The fuzz corpus kept in the tree (fixtures/fuzz/TARGET, grown by
# scripts/fuzz.sh) replayed through the binary: every input is read to a
# profile or refused with one error line, exit 0 or 2, never a crash or a
# sanitizer report (the sanitizer passes of scripts/test.sh and
# scripts/test-platforms.sh, gcc and clang, run this too). The history
# images are listed and compared as histories, the bundle inputs unpacked
# into folders (as tests/fuzz/fuzz_bundle.c does) and ingested.
. "$(dirname "$0")/lib.sh"
n=0
# replayed CMD...: exit 0 (1 for a comparison), or 2 with a short error
replayed() {
	"$@" >"$T/out" 2>"$T/err"
	st=$?
	if [ "$st" -eq 0 ] || { [ "$st" -eq 1 ] && [ "$2" = compare ]; } ||
		{ [ "$st" -eq 2 ] && [ "$(wc -l <"$T/err")" -le 3 ]; }; then ok; else
		not_ok "$f: $2: exit $st: $(head -c 300 "$T/err")"
	fi
}
for f in "$PD_ROOT"/fixtures/fuzz/*/*; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	case $f in
	*/fuzz/history/*)
		cp "$f" "$T/h.db"
		replayed pd runs --db "$T/h.db"
		# the first two commits listed, as the fuzz target compares them
		shas=$(awk 'NR > 1 && !seen[$2]++ { print $2 }' "$T/out" | head -n 2)
		set -- $shas
		if [ $# -eq 2 ]; then
			scen=$(awk -v s="$1" '$2 == s { print $3; exit }' "$T/out")
			replayed pd compare --db "$T/h.db" --scenario "$scen" "$1" "$2"
		fi
		;;
	*/fuzz/bundle/*)
		rm -rf "$T/b" && mkdir "$T/b"
		d=$(python3 - "$f" "$T/b" <<'PY'
import os, sys
parts = open(sys.argv[1], "rb").read().split(b"\0")[:6]
name = lambda b: b.replace(b"/", b"_").replace(b"\n", b"_").decode("utf-8", "surrogateescape")
d = os.path.join(sys.argv[2], name(parts[0]))
os.makedirs(os.path.join(d, "profiles"))
for k in (1, 3):
    if k < len(parts) and parts[k] not in (b"", b".", b".."):
        body = parts[k + 1] if k + 1 < len(parts) else b""
        open(os.path.join(d, "profiles", name(parts[k])), "wb").write(body)
if len(parts) > 5:
    open(os.path.join(d, "build_meta.json"), "wb").write(parts[5])
print(d)
PY
		)
		replayed pd ingest --db "$T/b.db" "$d"
		;;
	*) replayed pd show -f json "$f" ;;
	esac
done
[ "$n" -gt 0 ] && ok || not_ok "no fuzz corpus in fixtures/fuzz"
echo "replayed $n inputs"
finish