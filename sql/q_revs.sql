-- Commits whose sha starts with ?1 that have runs of the scenario/cache.
SELECT git_sha, count(*) FROM runs
WHERE substr(git_sha, 1, length(?1)) = ?1
  AND scenario = ?2 AND (CAST(?3 AS TEXT) IS NULL OR cache = ?3)
GROUP BY git_sha ORDER BY git_sha
