#!/bin/sh
# Builds the libFuzzer targets with clang and runs each for SECONDS
# (default 60), seeded from fixtures/ and, when present, ../shared/corpus.
# usage: scripts/fuzz.sh [SECONDS] [TARGET]   (TARGET: perf_script, folded,
#        perf_stat, speedscope, firefox, wpa, cpuprofile, pprof, dhat or
#        sniff;
#        default all)
set -eu
secs=${1:-60}
only=${2:-}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
CC=clang cmake -S . -B build-fuzz -DPD_FUZZ=ON -DPD_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-fuzz -j2 --target fuzz_perf_script fuzz_perf_stat fuzz_folded fuzz_speedscope fuzz_firefox fuzz_wpa fuzz_cpuprofile fuzz_pprof fuzz_dhat fuzz_sniff
corpus=$root/../shared/corpus
for t in perf_script:perf-script perf_stat: folded:folded speedscope:speedscope firefox:firefox-processed wpa:wpa-csv cpuprofile:cpuprofile pprof:pprof dhat:dhat sniff:; do
	name=${t%%:*}
	dir=${t#*:}
	[ -n "$only" ] && [ "$only" != "$name" ] && continue
	seeds=build-fuzz/seeds-$name
	mkdir -p "$seeds"
	find fixtures -type f -size -64k -exec cp {} "$seeds"/ \; 2>/dev/null || true
	if [ -n "$dir" ] && [ -d "$corpus/$dir" ]; then
		find "$corpus/$dir" -type f -size -64k -exec cp {} "$seeds"/ \;
	fi
	# gzipped seeds mutate into bad gzip, not bad protobuf: add them inflated
	for f in "$seeds"/*; do
		gzip -t "$f" 2>/dev/null && gzip -dc "$f" >"$f.raw" || true
	done
	echo "== fuzz_$name for ${secs}s"
	build-fuzz/tests/fuzz_$name -max_total_time="$secs" -max_len=65536 \
		-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "$seeds" 2>&1 | tail -6
done
