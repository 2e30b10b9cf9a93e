-- A file's bytes (?1, SHA-256) read into run ?2; kept when already there,
-- as SQLite's INSERT OR IGNORE does.
INSERT INTO run_files (hash, run_id) VALUES (?1, ?2)
ON CONFLICT (hash, run_id) DO NOTHING
