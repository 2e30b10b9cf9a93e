-- Run-level counters (perf stat) of a scenario/cache/tool for trends: one
-- row per run and counter, a counter's rows together.
SELECT m.run_id, m.key, m.value
FROM metrics m JOIN runs r ON r.id = m.run_id
WHERE r.scenario = ?1 AND r.cache = ?2 AND r.tool = ?3
  AND m.source = 'perf-stat:perf stat' AND m.measure = 'value'
ORDER BY m.key, m.run_id
