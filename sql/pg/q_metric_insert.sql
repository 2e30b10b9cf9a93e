-- A run-level or table metric; the last value of a key wins, as SQLite's
-- INSERT OR REPLACE does.
INSERT INTO metrics (run_id, source, key, measure, value)
VALUES (?1, ?2, ?3, ?4, ?5)
ON CONFLICT (run_id, source, key, measure) DO UPDATE SET value = excluded.value
