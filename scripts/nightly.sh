#!/bin/sh
# The nightly job: store the night's bundles, write the trend reports of
# every series (scenario x cache state x tool) of the history, and exit 1
# when a change point appeared that no earlier night reported.
#
#   scripts/nightly.sh --db perfdiff.db --out reports/ \
#       [--scenario S] [--cache C] [--tool T] [--repo PATH] [--last N]
#       [--since DATE] [--top K] [--function RE] [--threshold PCT]
#       [--site DIR] [--commit-url URL] [--perfdiff BIN] BUNDLE...
#
# Without --scenario, --cache and --tool: every series the history holds
# (perfdiff runs -f tsv lists them); each of the three narrows the list.
# Per series S/C/T, OUT/trend-S-C-T.md (for the mail or issue), .html,
# .json and .xlsx, and OUT/alerts-S-C-T.txt, the alerts already reported
# (first bad shas: perfdiff trend --state); the history stores them too
# (trend --record), where perfdiff alerts lists them and a team marks
# them: a change marked expected, invalid, fixed or backed-out is no
# news, even to a series that sees it first. A byte of a name outside
# [A-Za-z0-9._-] is written %XX in the file names. One line per series,
# then one per new change, naming every series that saw it. With --site,
# also brings the static site of the whole history in DIR up to date.
# Exit 0 no new alert, 1 a new alert in some series, 2 error.
set -u

db=${PERFDIFF_DB:-perfdiff.db} out=. pd=${PERFDIFF:-perfdiff} site= url=
scenario= cache= tool= have_s= have_c= have_t=
tab=$(printf '\t')
set -- "$@" --end
extra=
while [ "$1" != --end ]; do
	case $1 in
	--db) db=$2; shift 2 ;;
	--scenario) scenario=$2 have_s=1; shift 2 ;;
	--cache) cache=$2 have_c=1; shift 2 ;;
	--tool) tool=$2 have_t=1; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--perfdiff) pd=$2; shift 2 ;;
	--site) site=$2; shift 2 ;;
	--commit-url) url=$2; shift 2 ;;
	--repo | --last | --since | --top | --function | --threshold | --p)
		extra="$extra $1 $(printf '%s' "$2" | sed "s/'/'\\\\''/g; s/^/'/; s/\$/'/")"
		shift 2 ;;
	--*) echo "nightly: unknown option $1" >&2; exit 2 ;;
	*) set -- "$@" "$1"; shift ;;
	esac
done
shift # --end
# perfdiff itself: on PATH, or where --perfdiff (or $PERFDIFF) says
if ! command -v "$pd" >/dev/null 2>&1; then
	echo "nightly: perfdiff not found ('$pd'): put it on PATH, or pass --perfdiff BIN (or set PERFDIFF)" >&2
	exit 2
fi
mkdir -p "$out" || exit 2
if [ $# -gt 0 ]; then
	"$pd" ingest --db "$db" "$@" || exit 2
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/nightly.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT

# A name as a file name: bytes outside [A-Za-z0-9._-] as %XX.
fname() {
	printf '%s' "$1" | od -An -v -tx1 | awk '
		BEGIN { for (i = 0; i < 256; i++) h[sprintf("%02x", i)] = i }
		{
			for (k = 1; k <= NF; k++) {
				c = h[$k]
				if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) ||
				    (c >= 97 && c <= 122) || c == 45 || c == 46 || c == 95)
					printf "%c", c
				else
					printf "%%%s", $k
			}
		}'
}

# The series: scenario, cache, tool of every stored run, as perfdiff runs
# -f tsv writes them (tab, newline and backslash escaped), one a line.
set -- runs --db "$db" -f tsv
[ -n "$have_s" ] && set -- "$@" --scenario "$scenario"
[ -n "$have_c" ] && set -- "$@" --cache "$cache"
"$pd" "$@" >"$work/runs" 2>"$work/err" || { cat "$work/err" >&2; exit 2; }
cut -f3-5 "$work/runs" | LC_ALL=C sort -u |
	awk -F "$tab" -v t="$tool" -v want="$have_t" \
		'!want || $3 == t { print }' >"$work/series"
if [ ! -s "$work/series" ]; then
	what=
	[ -n "$have_s" ] && what="$what scenario $scenario"
	[ -n "$have_c" ] && what="$what cache $cache"
	[ -n "$have_t" ] && what="$what tool $tool"
	echo "nightly: no runs stored in $db${what:+ for$what}" >&2
	exit 2
fi

status=0
: >"$work/new"
while IFS="$tab" read -r s c t <&3; do
	# the names as stored; shown as listed, without control bytes
	sv=$(printf '%b' "$s") cv=$(printf '%b' "$c") tv=$(printf '%b' "$t")
	shown=$(printf '%s/%s/%s' "$s" "$c" "$t" | LC_ALL=C tr -d '\000-\037\177')
	name=$(fname "$sv")-$(fname "$cv")-$(fname "$tv")
	if grep -qxF "$name" "$work/names" 2>/dev/null; then
		echo "nightly: $shown: its file name $name is another series' too" >&2
		status=2
		continue
	fi
	echo "$name" >>"$work/names"
	base=$out/trend-$name
	state=$out/alerts-$name.txt
	# the state of a single-series job, from before series had files of
	# their own: its alerts stay reported
	old=$out/alerts-$(fname "$sv").txt
	if [ ! -e "$state" ] && [ -f "$old" ]; then
		cp "$old" "$state" || { status=2; continue; }
	fi
	key="--scenario \"\$sv\" --cache \"\$cv\" --tool \"\$tv\"$extra"
	[ -n "$url" ] && key="$key --commit-url \"\$url\""
	rc=0
	for fmt in html json xlsx; do
		eval "\"\$pd\" trend --db \"\$db\" $key -f $fmt -o \"\$base.$fmt\""
		r=$?
		[ $r -le 1 ] || rc=2
	done
	if [ -f "$state" ]; then
		LC_ALL=C sort -u "$state" >"$work/before"
	else
		: >"$work/before"
	fi
	if [ $rc -eq 0 ]; then
		eval "\"\$pd\" trend --db \"\$db\" $key -f md -o \"\$base.md\" --state \"\$state\" --record"
		rc=$?
	fi
	case $rc in
	0) echo "nightly: $shown: no new change point" ;;
	1)
		LC_ALL=C sort -u "$state" | LC_ALL=C comm -13 "$work/before" - >"$work/shas"
		at=$(cut -c1-10 "$work/shas" | tr '\n' ' ' | sed 's/ $//; s/ /, /g')
		echo "nightly: $shown: new change point at $at, see $base.md"
		while read -r sha; do
			printf '%s\t%s\t%s/%s\n' "$s" "$sha" "$c" "$t" >>"$work/new"
		done <"$work/shas"
		[ $status -eq 2 ] || status=1
		;;
	*)
		echo "nightly: $shown: the trend failed (see above)"
		status=2
		;;
	esac
done 3<"$work/series"

# One line per new change: a scenario's first bad commit, and every
# series (cache state, tool) that saw it.
LC_ALL=C sort "$work/new" | awk -F "$tab" '
	{
		k = $1 FS $2
		if (k != last) {
			if (last != "") print line
			line = "nightly: new change in " $1 " at " substr($2, 1, 10) ", seen by " $3
			n = 0
		} else
			line = line ", " $3
		last = k
	}
	END { if (last != "") print line }' | LC_ALL=C tr -d '\000-\011\013-\037\177'

if [ -n "$site" ]; then
	if [ -n "$url" ]; then
		"$pd" site "$site" --db "$db" --commit-url "$url" || status=2
	else
		"$pd" site "$site" --db "$db" || status=2
	fi
fi
exit $status
