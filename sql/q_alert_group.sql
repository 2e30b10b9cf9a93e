-- The group of the change a scenario's series saw at commit ?2, with its
-- state: the row of the group's first id.
SELECT grp, state, note, who, changed_at, fixed_by
FROM alerts
WHERE scenario = ?1 AND sha = ?2
ORDER BY id
LIMIT 1
