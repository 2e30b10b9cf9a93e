-- db copy: the alerts with their ids, groups and states.
SELECT id, grp, scenario, cache, tool, sha, good_sha, what, names, change,
       improves, state, note, who, changed_at, first_seen, fixed_by
FROM alerts
ORDER BY id
