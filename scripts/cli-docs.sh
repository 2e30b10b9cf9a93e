#!/bin/sh
# Writes the usage lines and option tables of docs/cli.md and the man page
# docs/perfdiff.1 from the command and option tables (src/cmd/cmdlist.h,
# src/cmd/options.c) through a built perfdiff.
# usage: scripts/cli-docs.sh [PERFDIFF] [DOCS_DIR]
# t0002 runs it into a copy and fails when the committed docs differ.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
pd=${1:-$root/build/perfdiff}
docs=${2:-$root/docs}
"$pd" help --man >"$docs/perfdiff.1.tmp"
mv "$docs/perfdiff.1.tmp" "$docs/perfdiff.1"
python3 - "$pd" "$docs/cli.md" <<'PY'
import re, subprocess, sys
pd, path = sys.argv[1], sys.argv[2]
text = open(path, encoding="utf-8").read()
def table(m):
    cmd = m.group(1)
    out = subprocess.run([pd, "help", "--markdown", cmd], check=True,
                         capture_output=True, text=True).stdout
    return m.group(0).split("\n", 1)[0] + "\n" + out + "<!-- /options:%s -->" % cmd
text = re.sub(r"<!-- options:([a-z]+) [^\n]*-->\n.*?<!-- /options:\1 -->",
              table, text, flags=re.S)
def synopsis(m):
    out = subprocess.run([pd, "help", "--synopsis"], check=True,
                         capture_output=True, text=True).stdout
    return (m.group(0).split("\n", 1)[0] + "\n```\n" + out +
            "```\n<!-- /synopsis -->")
text = re.sub(r"<!-- synopsis[^\n]*-->\n.*?<!-- /synopsis -->", synopsis,
              text, flags=re.S)
open(path + ".tmp", "w", encoding="utf-8").write(text)
PY
mv "$docs/cli.md.tmp" "$docs/cli.md"
