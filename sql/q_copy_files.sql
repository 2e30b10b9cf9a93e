-- db copy: the files one run was read from (none for runs stored before
-- schema 5 and not ingested since).
SELECT hash, run_id FROM run_files WHERE run_id = ?1 ORDER BY hash
