-- Each run's function rows once more, packed into one blob in function id
-- order (format in docs/history.md, "Tables"): reading a whole run, as
-- compare's noise learning and trend's ranking do, is one row instead of
-- one per function. run_functions stays the table of record and serves
-- one function's series; runs stored before this version have no packed
-- row and are read from run_functions.
CREATE TABLE run_packed (
	run_id INTEGER PRIMARY KEY,
	nrows  INTEGER NOT NULL,
	rows   BLOB NOT NULL
);

-- The runs of a scenario, cache and tool in date order with what trend
-- and noise learning read of them, in one covering index: the runs table's
-- rows lie scattered among a large history's pages, one page read each.
CREATE INDEX runs_by_date ON runs (scenario, cache, tool,
	coalesce(commit_date, run_date, ''), git_sha, repeat, id, total_weight,
	total_samples, interval, unit, commit_date, run_date);

-- A commit's runs by sha within a scenario: resolving a sha prefix (a
-- range of this index) and a side's cache states and tools, without
-- visiting every run of the scenario.
CREATE INDEX runs_by_sha ON runs (scenario, git_sha, cache, tool);
