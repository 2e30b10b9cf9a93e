#!/bin/sh
# A JSON report of many functions is streamed to its file: its peak memory
# stays that of the comparison. The second half of the rows, made on a
# second thread, used to wait in memory for the first (half the report:
# 1.3 GB for 2 M functions); it now waits in a temporary file
# (docs/reliability.md, "Caps").
. "$PD_ROOT/tests/cli/lib.sh"

if [ -n "$PD_WRAP" ] || grep -q -a __asan_report "$PERFDIFF"; then
	echo "note: peak memory is only compared without a wrapper or sanitizer"
	finish
fi
python3 - "$T" <<'PY'
import random, sys
for side, seed in (("a", 1), ("b", 2)):
    r = random.Random(seed)
    with open(f"{sys.argv[1]}/{side}.folded", "w") as f:
        for i in range(60000):
            f.write(f"main;w{i % 100};function_{i:06d} {r.randint(1, 20)}\n")
PY
# peak RSS in KiB of one perfdiff run, its exit status after it
peak() {
	python3 - "$@" <<'PY'
import resource, subprocess, sys
rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, rc)
PY
}
set -- $(peak "$PERFDIFF" "$T/a.folded" "$T/b.folded")
text=$1
[ "$2" -le 1 ] || not_ok "text report exited $2"
set -- $(peak "$PERFDIFF" -f json -o "$T/r.json" "$T/a.folded" "$T/b.folded")
json=$1
[ "$2" -le 1 ] || not_ok "json report exited $2"
size=$(($(wc -c <"$T/r.json") / 1024))
echo "peak: text $text KiB, json $json KiB, report $size KiB"
# without the temporary file the JSON peak was about 1.6 times the text's
[ "$json" -le $((text * 5 / 4)) ] && ok || not_ok "json peak $json KiB > 1.25 x text $text KiB"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["functions"]) > 60000' "$T/r.json" && ok || not_ok "report is not whole JSON"
expect_exit 0 pd -f json -o "$T/r2.json" "$T/a.folded" "$T/b.folded"
cmp -s "$T/r.json" "$T/r2.json" && ok || not_ok "two runs wrote different reports"
finish
