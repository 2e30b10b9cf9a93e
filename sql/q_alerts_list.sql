-- Every stored alert, a group's rows together, oldest group first.
SELECT id, grp, scenario, cache, tool, sha, good_sha, what, change,
       improves, state, note, who, changed_at, first_seen, fixed_by
FROM alerts
ORDER BY grp, id
