-- Ingest on a server: the bundle's functions, in the order they are
-- first used, to find or make their ids in three statements instead of
-- a round trip each (store/ingest_ids.c). Emptied at each commit.
CREATE TEMP TABLE IF NOT EXISTS want_functions (
	ord    bigint NOT NULL,
	name   text COLLATE "C" NOT NULL,
	module text COLLATE "C" NOT NULL
) ON COMMIT DELETE ROWS
