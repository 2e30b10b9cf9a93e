#!/bin/sh
# The Markdown of a bundle pair of several series (docs/reports.md,
# "Markdown"; docs/cli.md, "Bundles") stays under 60 000 characters as one
# comparison's does: every regressed series first and whole, its table of
# regressions uncut, then the improved, then the rest; the all-functions
# tables and the other series are shortened first, with a line saying
# what was left out and how to get it; the first line names each
# regressed function with its change, series by series; and the comment
# the CI scripts post from it holds it whole.
#
# Planted by hand: two tools (perfview, samply) x two cache states, three
# runs a side, 1202 functions each. In both warm series decode_frame<Pixel>
# goes 2000 -> 3000 samples and checksum_block 1000 -> 1500 (+50.0 % each:
# the runs' jitter of +-10 and -+5 cancels in the mean); in cold samply
# decode_frame<Pixel> goes 2000 -> 1400 (-30.0 %); the 1200 others are the
# same on both sides. So warm perfview and warm samply regress, cold
# samply improves, cold perfview does not move.
. "$(dirname "$0")/lib.sh"

python3 - "$T" <<'PY'
import os, sys
t = sys.argv[1]
for side in ("base", "cand"):
    os.makedirs("%s/%s/profiles" % (t, side))
    for cache in ("cold", "warm"):
        for tool in ("perfview", "samply"):
            for r in (1, 2, 3):
                j = r - 2
                dec, chk = 2000, 1000
                if side == "cand" and cache == "warm":
                    dec, chk = 3000, 1500
                if side == "cand" and cache == "cold" and tool == "samply":
                    dec = 1400
                path = "%s/%s/profiles/%s-%s-%d.folded" % (t, side, tool, cache, r)
                with open(path, "w") as f:
                    f.write("main;decode_frame<Pixel> %d\n" % (dec + 10 * j))
                    f.write("main;checksum_block %d\n" % (chk - 5 * j))
                    for i in range(1200):
                        f.write("main;engine::stage_%d::process_record_batch_%d %d\n"
                                % (i % 40, i, 40 + i % 17 + j * (1 + i % 3)))
PY

expect_exit 1 pd "$T/base" "$T/cand" -f md -o "$T/r.md"
n=$(wc -c <"$T/r.md")
echo "note: the Markdown of 4 series is $n bytes"
[ "$n" -lt 60000 ] && ok || not_ok "the Markdown of 4 series is $n bytes, over 60 000"

# The order, the regressions whole, the names escaped; the first line.
if python3 - "$T/r.md" <<'PY'
import re, sys
md = open(sys.argv[1], encoding="utf-8").read()
assert len(md) < 60000, len(md)
first, rest = md.split("\n", 1)
dec = "<code>decode&#95;frame&#60;Pixel&#62;</code>"
chk = "<code>checksum&#95;block</code>"
# one line naming each regressed function with its change, series by series
for s in ("warm perfview", "warm samply"):
    want = "%s: %s +50.0 %% (self), %s +50.0 %% (self)" % (s, dec, chk)
    assert want in first, (want, first)
assert "cold samply:" not in first and "cold perfview:" not in first, first
# sections in the order regressed, improved, the rest
parts = re.split(r"^### ", rest, flags=re.M)[1:]
heads = [p.split("\n", 1)[0] for p in parts]
assert heads == ["warm, perfview", "warm, samply", "cold, samply", "cold, perfview"], heads
assert first.startswith("**4 series compared (cache, tool): warm perfview regressed, "
                        "warm samply regressed, cold samply improved, cold perfview inconclusive**"), first
for p in parts[:2]:
    assert "**perfdiff: regressed**" in p.split("\n")[2], p[:300]
    table = p.split("#### Regressions\n\n", 1)[1].split("\n\n")[0]
    rows = [l for l in table.split("\n") if l.startswith("| <code>")]
    assert len(rows) == 2, table
    assert rows[0].startswith("| " + dec + " | regressed self | +50.0"), rows[0]
    assert rows[1].startswith("| " + chk + " | regressed self | +50.0"), rows[1]
    assert "left out" not in table, table
assert "**perfdiff: improved**" in parts[2], parts[2][:300]
assert "#### Improvements" in parts[2] and dec in parts[2]
# what was left out and how to get it
assert "left out to fit a comment" in md, "no line says what was left out"
assert "<code>-f json</code>" in md, "no line says how to get the rest"
assert "<code>--cache cold --tool perfview</code>" in md, "no way to one series"
# names stay escaped everywhere
assert "decode_frame" not in md and "<Pixel>" not in md
PY
then ok; else not_ok "the Markdown of several series"; fi

# The comment the GitHub Action and the GitLab job post holds it whole.
if python3 - "$PD_ROOT/scripts/ci/pr-report.py" "$T/r.md" <<'PY'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("pr_report", sys.argv[1])
pr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pr)
md = open(sys.argv[2], encoding="utf-8").read().rstrip("\n")
marker = "<!-- perfdiff-comment: perfdiff -->"
foot = "<sub>for <code>0123456789</code></sub>"
body = pr.comment_body(marker, md, foot)
assert md in body and len(body) <= pr.MAX_BODY, len(body)
assert "cut" not in body.rsplit(foot, 1)[1], body[-300:]
PY
then ok; else not_ok "the comment does not hold the report whole"; fi

# Text and JSON are not shortened: every series whole, in their order.
expect_exit 1 pd "$T/base" "$T/cand"
expect_grep "^4 series compared (cache, tool): cold perfview inconclusive, warm perfview regressed, cold samply improved, warm samply regressed$" "$T/out"
finish
