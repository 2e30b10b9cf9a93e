-- One run's function rows in one blob; no row for runs stored before
-- schema 3, whose rows are read from run_functions.
SELECT nrows, rows FROM run_packed WHERE run_id = ?1
