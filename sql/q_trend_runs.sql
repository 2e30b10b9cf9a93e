-- Runs of a scenario/cache/tool in commit-date order, for trends.
SELECT id, git_sha, coalesce(commit_date, run_date, '') AS d, total_weight,
       coalesce(interval, 0), unit, format
FROM runs
WHERE scenario = ?1 AND cache = ?2 AND tool = ?3
ORDER BY d, git_sha, repeat
