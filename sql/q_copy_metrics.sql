-- db copy: one run's metrics.
SELECT run_id, source, key, measure, value FROM metrics WHERE run_id = ?1
ORDER BY source, key, measure
