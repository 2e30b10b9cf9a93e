-- The runs of a bundle stored before schema 5 (?1: its hash as computed
-- then) that have no file hashes yet, with the file each was read from.
SELECT r.id, r.source FROM runs r
WHERE r.bundle_hash = ?1
  AND NOT EXISTS (SELECT 1 FROM run_files f WHERE f.run_id = r.id)
ORDER BY r.id
