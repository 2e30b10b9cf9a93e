-- db copy: one run's time-block dispersions, as stored (none for runs
-- without sample times or from before schema 4).
SELECT run_id, nrows, rows FROM run_bursts WHERE run_id = ?1
