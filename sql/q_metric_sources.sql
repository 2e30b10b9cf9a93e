-- Whether run ?1 holds metrics from source ?2 already.
SELECT 1 FROM metrics WHERE run_id = ?1 AND source = ?2 LIMIT 1
