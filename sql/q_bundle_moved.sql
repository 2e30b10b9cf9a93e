-- A bundle ingested again from the folder it was renamed to.
UPDATE bundles SET path = ?2 WHERE hash = ?1
