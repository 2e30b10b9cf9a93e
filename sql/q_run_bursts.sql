-- One run's time-block dispersions; no row for a run without sample
-- times or stored before schema 4.
SELECT nrows, rows FROM run_bursts WHERE run_id = ?1
