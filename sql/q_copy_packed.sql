-- db copy: one run's packed rows, as stored (none for runs from before
-- schema 3).
SELECT run_id, nrows, rows FROM run_packed WHERE run_id = ?1
