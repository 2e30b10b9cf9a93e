-- One function's self and total over the runs of a scenario, in commit
-- order. The rows are fetched through an IN list, which SQLite probes in
-- run id order: the leaf pages of run_functions are then read in file
-- order, several times faster than in commit order on a large history.
SELECT r.git_sha, coalesce(r.commit_date, r.run_date, '') AS d, r.repeat,
       coalesce(x.self_w, x.self_n * r.interval),
       coalesce(x.total_w, x.total_n * r.interval)
FROM (SELECT run_id, self_n, total_n, self_w, total_w
      FROM run_functions
      WHERE func_id = ?1
        AND run_id IN (SELECT id FROM runs
                       WHERE scenario = ?2 AND (CAST(?3 AS TEXT) IS NULL OR cache = ?3))) x
JOIN runs r ON r.id = x.run_id
ORDER BY d, r.git_sha, r.repeat
