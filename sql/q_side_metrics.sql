-- The stored metrics (perf stat counters, tables) of one side, by run.
SELECT m.run_id, m.source, m.key, m.measure, m.value
FROM metrics m JOIN runs r ON r.id = m.run_id
WHERE r.git_sha = ?1 AND r.scenario = ?2 AND (CAST(?3 AS TEXT) IS NULL OR r.cache = ?3)
ORDER BY m.run_id, m.source, m.key, m.measure
