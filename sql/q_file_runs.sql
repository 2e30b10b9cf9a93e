-- The stored runs files of these bytes (?1, their SHA-256) were read
-- into, with their key, metadata and the bundle each came from.
SELECT r.id, r.git_sha, r.scenario, r.cache, r.source, r.build_meta,
       r.commit_date, r.run_date, r.host, r.bundle_hash, b.path
FROM run_files f
JOIN runs r ON r.id = f.run_id
JOIN bundles b ON b.hash = r.bundle_hash
WHERE f.hash = ?1
ORDER BY r.id
