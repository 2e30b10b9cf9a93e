-- As sql/0003_whole_runs.sql: each run's function rows packed in one blob.
CREATE TABLE run_packed (
	run_id bigint PRIMARY KEY,
	nrows  bigint NOT NULL,
	rows   bytea NOT NULL
);
-- The blob is read whole and hardly compresses: stored out of line without
-- the server's compression, which ingest would pay on every run.
ALTER TABLE run_packed ALTER COLUMN rows SET STORAGE EXTERNAL;

-- As sql/0003_whole_runs.sql: the runs of a key in date order, covering.
CREATE INDEX runs_by_date ON runs (scenario, cache, tool,
	(coalesce(commit_date, run_date, '')), git_sha, repeat)
	INCLUDE (id, total_weight, total_samples, interval, unit, commit_date,
		 run_date);

-- As sql/0003_whole_runs.sql: a commit's runs by sha within a scenario.
CREATE INDEX runs_by_sha ON runs (scenario, git_sha, cache, tool);
