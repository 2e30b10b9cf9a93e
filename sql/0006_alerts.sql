-- Alerts a team triages (docs/history.md, "Alerts"): one row per change
-- point of one series (scenario, cache state, tool), stored by
-- `perfdiff trend --record` (nightly.sh). Rows of one scenario whose
-- change starts at the same commit form a group, numbered by its first
-- row's id; a group has one state, kept on each of its rows.
CREATE TABLE alerts (
	id         INTEGER PRIMARY KEY,
	grp        INTEGER NOT NULL,   -- the group: its first row's id
	scenario   TEXT NOT NULL,
	cache      TEXT NOT NULL,
	tool       TEXT NOT NULL,
	sha        TEXT NOT NULL,      -- first bad commit
	good_sha   TEXT NOT NULL,      -- last good commit
	what       TEXT NOT NULL,      -- the change as reports say it
	names      TEXT NOT NULL,      -- the series that moved, one a line
	change     REAL,               -- the total's change (a fraction)
	improves   INTEGER NOT NULL,   -- 1 an improvement, 0 a regression
	state      TEXT NOT NULL,      -- new, acknowledged, expected,
	                               -- invalid, fixed, backed-out
	note       TEXT,
	who        TEXT,               -- who set the state
	changed_at TEXT,               -- when (UTC, ISO 8601)
	first_seen TEXT NOT NULL,      -- when it was recorded
	fixed_by   INTEGER,            -- the improvement's group that undid it
	UNIQUE (scenario, cache, tool, sha)
);
CREATE INDEX alerts_by_group ON alerts (grp);
CREATE INDEX alerts_by_change ON alerts (scenario, sha);
