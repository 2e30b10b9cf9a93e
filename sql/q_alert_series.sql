-- The stored alerts of a scenario with their groups' states, to mark a
-- trend's change points: the rows of series (?2 cache, ?3 tool) first,
-- then the scenario's other series, whose change a new row would join.
SELECT sha, id, grp, state, CASE WHEN cache = ?2 AND tool = ?3 THEN 1 ELSE 0 END AS own
FROM alerts
WHERE scenario = ?1
ORDER BY own DESC, id
