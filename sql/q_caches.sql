-- Cache states and tools stored for one commit and scenario.
SELECT DISTINCT cache, tool FROM runs WHERE git_sha = ?1 AND scenario = ?2
ORDER BY cache, tool
