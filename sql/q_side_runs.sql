-- The runs of one side of a comparison.
SELECT id, cache, tool, format, unit, interval, event, total_weight,
       total_samples, source, host, build_meta, commit_date
FROM runs
WHERE git_sha = ?1 AND scenario = ?2
  AND (CAST(?3 AS TEXT) IS NULL OR cache = ?3) AND (CAST(?4 AS TEXT) IS NULL OR tool = ?4)
ORDER BY tool, repeat
