#!/bin/sh
# Every corpus file of the supported formats imports with exit 0, and the
# format is sniffed right without --from.
. "$(dirname "$0")/lib.sh"
need_corpus

for dir in perf-script folded speedscope; do
	for f in "$PD_CORPUS/$dir"/*; do
		expect_exit 0 pd show -f json "$f"
		want=$dir
		[ "$dir" = perf-script ] && want=perf-script
		if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); p=d["profile"]; assert p["format"]==sys.argv[2], p["format"]; assert p["total"]>0; assert d["functions"]' "$T/out" "$want" 2>"$T/py"; then ok; else
			not_ok "$f: $(cat "$T/py")"
		fi
	done
done
# Two corpus files of each format diff without error (exit 0 or 1).
for pair in "perf-script/speedscope-simple-with-pid.linux-perf.txt perf-script/speedscope-simple-with-header.linux-perf.txt" \
	"speedscope/speedscope-0.0.1-simple.speedscope.json speedscope/speedscope-0.0.1-simple-no-pretty-print.speedscope.json" \
	"folded/FlameGraph-perf-vertx-stacks-01-collapsed-all.txt folded/inferno-perf-vertx-collapsed-all-unsorted.txt"; do
	set -- $pair
	pd -f json "$PD_CORPUS/$1" "$PD_CORPUS/$2" >"$T/out" 2>"$T/err"
	rc=$?
	[ "$rc" -le 1 ] && ok || not_ok "diff $1 $2 exited $rc: $(cat "$T/err")"
done
# dotnet-trace's TraceEvent exports (PerfView's writer): every file
# imports and a pair diffs.
for f in dotnet-trace-TraceEvent3.1.16-aspnet.speedscope.json \
	dotnet-trace-TraceEvent3.1.23-wpf.speedscope.json \
	dotnet-trace-RobotCleaner-oldTraceEvent.speedscope.json; do
	have_extra "speedscope/$f" || continue
	expect_exit 0 pd show -f json "$PD_CORPUS/speedscope/$f"
done
if have_extra speedscope/dotnet-trace-TraceEvent3.1.23-wpf.speedscope.json &&
	have_extra speedscope/dotnet-trace-TraceEvent3.1.16-aspnet.speedscope.json; then
	pd -f json "$PD_CORPUS/speedscope/dotnet-trace-TraceEvent3.1.16-aspnet.speedscope.json" \
		"$PD_CORPUS/speedscope/dotnet-trace-TraceEvent3.1.23-wpf.speedscope.json" >"$T/out" 2>"$T/err"
	[ $? -le 1 ] && ok || not_ok "dotnet-trace pair: $(cat "$T/err")"
fi
finish
