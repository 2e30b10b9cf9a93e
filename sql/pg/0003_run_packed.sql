-- As sql/0003_run_packed.sql: each run's function rows packed in one blob.
CREATE TABLE run_packed (
	run_id bigint PRIMARY KEY,
	nrows  bigint NOT NULL,
	rows   bytea NOT NULL
);
-- The blob is read whole and hardly compresses: stored out of line without
-- the server's compression, which ingest would pay on every run.
ALTER TABLE run_packed ALTER COLUMN rows SET STORAGE EXTERNAL;
