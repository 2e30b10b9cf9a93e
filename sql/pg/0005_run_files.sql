-- As sql/0005_run_files.sql: the files each run was read from.
CREATE TABLE run_files (
	hash   text COLLATE "C" NOT NULL,
	run_id bigint NOT NULL,
	PRIMARY KEY (hash, run_id)
);
CREATE INDEX run_files_by_run ON run_files (run_id);
