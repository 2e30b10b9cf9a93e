-- Cache states and tools stored for a scenario, for settling a trend's key.
SELECT DISTINCT cache, tool FROM runs
WHERE scenario = ?1 AND (CAST(?2 AS TEXT) IS NULL OR cache = ?2) AND (CAST(?3 AS TEXT) IS NULL OR tool = ?3)
ORDER BY cache, tool
