-- A run-level or table metric (perf stat counters, WPA tables).
INSERT OR REPLACE INTO metrics (run_id, source, key, measure, value)
VALUES (?1, ?2, ?3, ?4, ?5)
