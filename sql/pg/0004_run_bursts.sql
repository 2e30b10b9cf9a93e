-- As sql/0004_run_bursts.sql: each run's time-block dispersions.
CREATE TABLE run_bursts (
	run_id bigint PRIMARY KEY,
	nrows  bigint NOT NULL,
	rows   bytea NOT NULL
);
