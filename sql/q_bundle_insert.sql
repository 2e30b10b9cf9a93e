INSERT INTO bundles (hash, path, ingested_at) VALUES (?1, ?2, ?3)
