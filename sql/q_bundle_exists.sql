SELECT 1 FROM bundles WHERE hash = ?1
