-- As sql/0003_run_packed.sql: each run's function rows packed in one blob.
CREATE TABLE run_packed (
	run_id bigint PRIMARY KEY,
	nrows  bigint NOT NULL,
	rows   bytea NOT NULL
);
