-- perfdiff history, schema version 1. Documented in docs/history.md.
-- Weights are in the run's unit (ns for time). In run_functions a NULL
-- weight means "count x the run's interval" and a NULL count means
-- "weight / interval": only what cannot be derived is stored.

CREATE TABLE bundles (
	hash        TEXT PRIMARY KEY,  -- SHA-256 over the bundle's files
	path        TEXT NOT NULL,     -- as given to ingest
	ingested_at TEXT NOT NULL      -- UTC, ISO 8601
) WITHOUT ROWID;

CREATE TABLE runs (
	id            INTEGER PRIMARY KEY,
	bundle_hash   TEXT NOT NULL REFERENCES bundles(hash),
	git_sha       TEXT NOT NULL,
	scenario      TEXT NOT NULL,
	cache         TEXT NOT NULL,   -- warm, cold, or as given
	repeat        INTEGER NOT NULL,-- 1..N among the bundle's profiles of one tool
	tool          TEXT NOT NULL,   -- perf, perfview, py-spy, ...
	format        TEXT NOT NULL,   -- importer: perf-script, speedscope, folded
	source        TEXT NOT NULL,   -- profile path inside the bundle
	unit          TEXT NOT NULL,   -- ns, samples, bytes, count
	interval      REAL,            -- weight of one sample; NULL if unknown
	event         TEXT,
	total_weight  REAL NOT NULL,
	total_samples REAL NOT NULL,
	commit_date   TEXT,            -- from build_meta.json, ISO 8601
	run_date      TEXT,            -- when the profile was taken
	host          TEXT,            -- host fingerprint
	build_meta    TEXT,            -- build_meta.json as found (JSON)
	UNIQUE (bundle_hash, tool, repeat)
);
CREATE INDEX runs_by_key ON runs (scenario, cache, git_sha);

CREATE TABLE functions (
	id     INTEGER PRIMARY KEY,
	name   TEXT NOT NULL,          -- normalised name
	module TEXT NOT NULL,          -- module basename, '' if none
	UNIQUE (name, module)
);

CREATE TABLE run_functions (
	run_id  INTEGER NOT NULL,
	func_id INTEGER NOT NULL,
	self_n  NUMERIC,               -- samples whose leaf is the function
	total_n NUMERIC,               -- samples with the function on the stack
	self_w  NUMERIC,               -- NULL: self_n * runs.interval
	total_w NUMERIC,               -- NULL: total_n * runs.interval
	PRIMARY KEY (run_id, func_id)
) WITHOUT ROWID;

-- The same with every number filled in.
CREATE VIEW run_functions_v AS
SELECT rf.run_id, rf.func_id, f.name, f.module,
       coalesce(rf.self_w, rf.self_n * r.interval)   AS self,
       coalesce(rf.total_w, rf.total_n * r.interval) AS total,
       coalesce(rf.self_n, rf.self_w / r.interval)   AS self_samples,
       coalesce(rf.total_n, rf.total_w / r.interval) AS total_samples
FROM run_functions rf
JOIN runs r ON r.id = rf.run_id
JOIN functions f ON f.id = rf.func_id;

-- Each run's stack tree, zlib-compressed (format in docs/history.md).
CREATE TABLE run_stacks (
	run_id INTEGER PRIMARY KEY,
	nodes  INTEGER NOT NULL,
	tree   BLOB NOT NULL
);

-- Run-level and table metrics that are not CPU stacks.
CREATE TABLE metrics (
	run_id  INTEGER NOT NULL,
	source  TEXT NOT NULL,         -- table or tool, e.g. 'wpa:Disk Usage'
	key     TEXT NOT NULL,         -- row key, '' for run-level counters
	measure TEXT NOT NULL,
	value   REAL NOT NULL,
	PRIMARY KEY (run_id, source, key, measure)
) WITHOUT ROWID;
