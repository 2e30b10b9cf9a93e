-- Stored runs, newest commit first; every filter is optional (NULL).
SELECT id, git_sha, scenario, cache, tool, repeat, format, unit,
       total_weight, total_samples, coalesce(commit_date, run_date, ''), source
FROM runs
WHERE (?1 IS NULL OR scenario = ?1)
  AND (?2 IS NULL OR cache = ?2)
  AND (?3 IS NULL OR substr(git_sha, 1, length(?3)) = ?3)
ORDER BY coalesce(commit_date, run_date, '') DESC, git_sha, tool, repeat
