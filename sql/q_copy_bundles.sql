-- db copy: every bundle.
SELECT hash, path, ingested_at FROM bundles ORDER BY hash
