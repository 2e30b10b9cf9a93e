-- Cache states and tools stored for a scenario, for settling a trend's key.
SELECT DISTINCT cache, tool FROM runs
WHERE scenario = ?1 AND (?2 IS NULL OR cache = ?2) AND (?3 IS NULL OR tool = ?3)
ORDER BY cache, tool
