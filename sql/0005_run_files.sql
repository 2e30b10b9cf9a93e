-- The files each run was read from, by the SHA-256 of their bytes: its
-- profile, and the perf stat counters joined to it. A profile ingested
-- again is the run its bytes were stored as, which then takes the key
-- and metadata its bundle gives now instead of being stored twice
-- (docs/history.md, "Ingest"). The same bytes may be runs of several
-- commits (a deterministic profiler's, a synthetic history's). Runs
-- stored before this version have no rows here until their bundle is
-- ingested again (docs/history.md, "Histories from before schema 5").
CREATE TABLE run_files (
	hash   TEXT NOT NULL,          -- SHA-256 of the file's bytes
	run_id INTEGER NOT NULL,
	PRIMARY KEY (hash, run_id)
) WITHOUT ROWID;
CREATE INDEX run_files_by_run ON run_files (run_id);
