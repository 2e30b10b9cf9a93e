#!/bin/sh
# The nightly job: store the night's bundles, write the trend reports, and
# exit 1 when a change point appeared that no earlier night reported.
#
#   scripts/nightly.sh --db perfdiff.db --scenario S --out reports/ \
#       [--cache C] [--repo PATH] [--last N] [--site DIR] [--commit-url URL]
#       [--perfdiff BIN] BUNDLE...
#
# Writes OUT/trend-S.md (for the mail or issue), .html, .json, .xlsx; with
# --site, also brings the static site of the whole history in DIR up to
# date (perfdiff site: only what changed is remade).
# OUT/alerts-S.txt remembers the alerts already reported (first bad sha).
# Exit 0 no new alert, 1 new alert (see OUT/trend-S.md), 2 error.
set -u

db=${PERFDIFF_DB:-perfdiff.db} scenario= out=. pd=${PERFDIFF:-perfdiff} site= url=
set -- "$@" --end
extra=
while [ "$1" != --end ]; do
	case $1 in
	--db) db=$2; shift 2 ;;
	--scenario) scenario=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--perfdiff) pd=$2; shift 2 ;;
	--site) site=$2; shift 2 ;;
	--commit-url) url=$2; shift 2 ;;
	--cache | --repo | --last | --since | --top | --function | --tool)
		extra="$extra $1 $(printf '%s' "$2" | sed "s/'/'\\\\''/g; s/^/'/; s/\$/'/")"
		shift 2 ;;
	--*) echo "nightly: unknown option $1" >&2; exit 2 ;;
	*) set -- "$@" "$1"; shift ;;
	esac
done
shift # --end
if [ -z "$scenario" ]; then
	echo "nightly: --scenario is required" >&2
	exit 2
fi
mkdir -p "$out" || exit 2
if [ $# -gt 0 ]; then
	"$pd" ingest --db "$db" "$@" || exit 2
fi
base=$out/trend-$scenario
for fmt in html json xlsx; do
	eval "\"\$pd\" trend --db \"\$db\" --scenario \"\$scenario\" $extra -f $fmt -o \"\$base.$fmt\""
	[ $? -le 1 ] || exit 2
done
eval "\"\$pd\" trend --db \"\$db\" --scenario \"\$scenario\" $extra -f md -o \"\$base.md\" --state \"\$out/alerts-\$scenario.txt\""
rc=$?
if [ -n "$site" ] && [ $rc -le 1 ]; then
	if [ -n "$url" ]; then
		"$pd" site "$site" --db "$db" --commit-url "$url" || exit 2
	else
		"$pd" site "$site" --db "$db" || exit 2
	fi
fi
case $rc in
0) echo "nightly: $scenario: no new change point" ;;
1) echo "nightly: $scenario: new change point, see $base.md" ;;
*) exit 2 ;;
esac
exit $rc
