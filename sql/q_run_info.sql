-- A stored run (?1) with its key, metadata and the bundle it came from,
-- as q_file_runs gives them.
SELECT r.id, r.git_sha, r.scenario, r.cache, r.source, r.build_meta,
       r.commit_date, r.run_date, r.host, r.bundle_hash, b.path
FROM runs r
JOIN bundles b ON b.hash = r.bundle_hash
WHERE r.id = ?1
