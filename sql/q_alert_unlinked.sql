-- Regressions of a scenario marked fixed or backed out that no
-- improvement is linked to yet, with the series that moved.
SELECT grp, names
FROM alerts
WHERE scenario = ?1 AND improves = 0 AND fixed_by IS NULL
  AND state IN ('fixed', 'backed-out')
ORDER BY grp, id
