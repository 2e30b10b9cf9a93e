-- Runs stored before schema 5 without file hashes that were read from a
-- file of this name (?1) by this tool (?2) with these totals (?3, ?4),
-- and the bundle path they came from.
SELECT r.id, b.path FROM runs r
JOIN bundles b ON b.hash = r.bundle_hash
WHERE r.source = ?1 AND r.tool = ?2 AND r.total_weight = ?3
  AND r.total_samples = ?4
  AND NOT EXISTS (SELECT 1 FROM run_files f WHERE f.run_id = r.id)
ORDER BY r.id
