-- Stored runs, newest commit first; every filter is optional (NULL). The
-- last two columns are for runs -v: the run's build_meta.json and the
-- bundle it came from.
SELECT r.id, r.git_sha, r.scenario, r.cache, r.tool, r.repeat, r.format,
       r.unit, r.total_weight, r.total_samples,
       coalesce(r.commit_date, r.run_date, ''), r.source, r.build_meta,
       b.path
FROM runs r
LEFT JOIN bundles b ON b.hash = r.bundle_hash
WHERE (CAST(?1 AS TEXT) IS NULL OR r.scenario = ?1)
  AND (CAST(?2 AS TEXT) IS NULL OR r.cache = ?2)
  AND (CAST(?3 AS TEXT) IS NULL OR substr(r.git_sha, 1, length(?3)) = ?3)
ORDER BY coalesce(r.commit_date, r.run_date, '') DESC, r.git_sha, r.tool,
         r.repeat
