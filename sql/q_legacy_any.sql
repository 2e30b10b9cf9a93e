-- Whether some run was stored before schema 5, without its files' hashes.
SELECT 1 FROM runs r
WHERE NOT EXISTS (SELECT 1 FROM run_files f WHERE f.run_id = r.id)
LIMIT 1
