-- One function's self weight in every run of a scenario/cache/tool, read
-- through the function's index (?1 the function id). Runs without the
-- function have no row.
SELECT x.run_id, coalesce(x.self_w, x.self_n * coalesce(r.interval, 0), 0)
FROM run_functions x
JOIN runs r ON r.id = x.run_id
WHERE x.func_id = ?1
  AND x.run_id IN (SELECT id FROM runs
                   WHERE scenario = ?2 AND cache = ?3 AND tool = ?4)
