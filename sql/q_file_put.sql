-- A file's bytes (?1, SHA-256) read into run ?2; kept when already there.
INSERT OR IGNORE INTO run_files (hash, run_id) VALUES (?1, ?2)
