#!/bin/sh
# The partitioned layout of docs/history.md ("Toward 5 billion rows") on a
# generated history, with the plans of the two reads that matter: one
# run's rows (compare) and one function's rows over a window of runs
# (trend --function). Shows that each stays an index-only scan of the
# window's partitions, however large the table.
# usage: tests/bench/pg_partitions.sh URL [RUNS_PER_PARTITION]
#   URL: a database filled by build/tests/bench_gen_db (public schema);
#   the layout is built beside it in schema "part" and dropped at the end.
set -eu
url=$1
per=${2:-100}
q() { psql -X -q -v ON_ERROR_STOP=1 -d "$url" "$@"; }
runs=$(q -t -A -c "SELECT max(id) FROM runs")
q <<SQL
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS part CASCADE;
CREATE SCHEMA part;
-- Partitions by range of run id: ids grow with time, so a range is a
-- period; the key carries the numbers, so reads never visit the heap.
CREATE TABLE part.run_functions (LIKE public.run_functions)
	PARTITION BY RANGE (run_id);
ALTER TABLE part.run_functions ADD PRIMARY KEY (run_id, func_id)
	INCLUDE (self_n, total_n, self_w, total_w);
SELECT format('CREATE TABLE part.rf_%s PARTITION OF part.run_functions'
              ' FOR VALUES FROM (%s) TO (%s)', lo, lo, lo + $per)
FROM generate_series(1, $runs, $per) AS lo \gexec
CREATE TABLE part.runs (LIKE public.runs INCLUDING ALL);
INSERT INTO part.runs SELECT * FROM public.runs;
CREATE INDEX ON part.runs USING brin (commit_date);
SQL
start=$(date +%s)
q -c "INSERT INTO part.run_functions SELECT * FROM public.run_functions"
q -c "VACUUM ANALYZE part.run_functions"
q -c "VACUUM ANALYZE part.runs"
echo "filled $(q -t -A -c 'SELECT count(*) FROM part.run_functions') rows in" \
	"$(( $(date +%s) - start )) s, $(q -t -A -c "SELECT count(*) FROM pg_inherits WHERE inhparent = 'part.run_functions'::regclass") partitions"
last=$runs
first=$((runs - 299))
echo "== one run's rows (compare)"
q -c "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, SUMMARY OFF)
      SELECT func_id, self_n, total_n, self_w, total_w
      FROM part.run_functions WHERE run_id = $last"
echo "== one function's rows over the last 300 runs (trend --function)"
q -c "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, SUMMARY OFF)
      SELECT run_id, self_n, total_n, self_w, total_w
      FROM part.run_functions
      WHERE func_id = 18
        AND run_id IN (SELECT id FROM part.runs
                       WHERE scenario = 'bench' AND cache = 'warm'
                         AND tool = 'perf' AND id >= $first AND id <= $last)"
q -c "SET client_min_messages = warning; DROP SCHEMA part CASCADE"
