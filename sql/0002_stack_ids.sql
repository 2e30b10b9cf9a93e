-- Stack trees name their functions by the history's ids (functions.id)
-- from this version on: ids = 1. Older trees (ids = 0) used the ingest's
-- own numbering, which cannot be read back; their runs keep the
-- aggregates of run_functions alone (docs/history.md).
ALTER TABLE run_stacks ADD COLUMN ids INTEGER NOT NULL DEFAULT 0;
