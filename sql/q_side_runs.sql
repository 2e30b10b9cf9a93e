-- The runs of one side of a comparison.
SELECT id, cache, tool, format, unit, interval, event, total_weight,
       total_samples, source, host, build_meta
FROM runs
WHERE git_sha = ?1 AND scenario = ?2
  AND (?3 IS NULL OR cache = ?3) AND (?4 IS NULL OR tool = ?4)
ORDER BY tool, repeat
