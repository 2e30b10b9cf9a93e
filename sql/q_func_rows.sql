-- One function's rows (?1) in the runs of a key (?2 scenario, ?3 cache,
-- ?4 tool) whose ids lie in [?5, ?6]: one query for a function's series,
-- each run probed through the table's key (run, function), instead of a
-- lookup per run (a round trip each on a server).
SELECT run_id, self_n, total_n, self_w, total_w
FROM run_functions
WHERE func_id = ?1
  AND run_id IN (SELECT id FROM runs
                 WHERE scenario = ?2 AND cache = ?3 AND tool = ?4
                   AND id >= ?5 AND id <= ?6)
