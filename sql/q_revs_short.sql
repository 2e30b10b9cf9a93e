-- Commits stored by a prefix of the full id ?1 (ingested without a
-- repository to resolve them) that have runs of the scenario/cache ?2/?3.
-- A prefix sorts before the id and after its first four digits: a range
-- of the runs_by_sha index.
SELECT git_sha, count(*) FROM runs
WHERE scenario = ?2 AND git_sha >= substr(?1, 1, 4) AND git_sha < ?1
  AND git_sha = substr(?1, 1, length(git_sha))
  AND (CAST(?3 AS TEXT) IS NULL OR cache = ?3)
GROUP BY git_sha ORDER BY git_sha
