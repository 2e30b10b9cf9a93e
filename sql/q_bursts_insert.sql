-- A run's time-block dispersions, packed (docs/history.md, "Tables").
INSERT INTO run_bursts (run_id, nrows, rows) VALUES (?1, ?2, ?3)
