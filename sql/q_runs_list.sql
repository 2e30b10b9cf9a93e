-- Stored runs, newest commit first; every filter is optional (NULL).
SELECT id, git_sha, scenario, cache, tool, repeat, format, unit,
       total_weight, total_samples, coalesce(commit_date, run_date, ''), source
FROM runs
WHERE (CAST(?1 AS TEXT) IS NULL OR scenario = ?1)
  AND (CAST(?2 AS TEXT) IS NULL OR cache = ?2)
  AND (CAST(?3 AS TEXT) IS NULL OR substr(git_sha, 1, length(?3)) = ?3)
ORDER BY coalesce(commit_date, run_date, '') DESC, git_sha, tool, repeat
