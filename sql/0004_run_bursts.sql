-- Each run's time-block dispersions (docs/statistics.md, "Bursty
-- functions"; format in docs/history.md, "Tables"): how far each
-- function's self and total samples scattered over the run's time blocks
-- beyond sampling, so that a stored run is judged as its file was. One
-- blob a run, in run_packed's format; only functions with a dispersion
-- have a row. Runs from profiles without sample times, and runs stored
-- before this version, have none.
CREATE TABLE run_bursts (
	run_id INTEGER PRIMARY KEY,
	nrows  INTEGER NOT NULL,
	rows   BLOB NOT NULL
);
