-- A run's function rows, packed (docs/history.md, "Tables").
INSERT INTO run_packed (run_id, nrows, rows) VALUES (?1, ?2, ?3)
