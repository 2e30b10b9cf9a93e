-- One function's self and total over the runs of a scenario, in commit
-- order: one key lookup per run in run_functions (run_id, func_id).
SELECT r.git_sha, coalesce(r.commit_date, r.run_date, '') AS d, r.repeat,
       coalesce(rf.self_w, rf.self_n * r.interval),
       coalesce(rf.total_w, rf.total_n * r.interval)
FROM runs r
JOIN run_functions rf ON rf.run_id = r.id AND rf.func_id = ?1
WHERE r.scenario = ?2 AND (?3 IS NULL OR r.cache = ?3)
ORDER BY d, r.git_sha, r.repeat
