-- Commits whose sha starts with ?1 that have runs of the scenario/cache.
-- ?4 is ?1 followed by U+10FFFF: in bytes above everything that starts
-- with ?1 (but ?1 followed by that noncharacter, which no sha holds), so
-- the prefix is also a range of the runs_by_sha index.
SELECT git_sha, count(*) FROM runs
WHERE scenario = ?2 AND git_sha >= ?1 AND git_sha < ?4
  AND substr(git_sha, 1, length(?1)) = ?1
  AND (CAST(?3 AS TEXT) IS NULL OR cache = ?3)
GROUP BY git_sha ORDER BY git_sha
