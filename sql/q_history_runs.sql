-- Runs of a scenario/cache/tool in commit order, for learning noise.
SELECT id, git_sha, coalesce(commit_date, run_date, '') AS d, total_weight,
       total_samples, interval
FROM runs
WHERE scenario = ?1 AND cache = ?2 AND tool = ?3
ORDER BY d, git_sha, repeat
