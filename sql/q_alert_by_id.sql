-- The group and state of alert ?1.
SELECT grp, state, improves, scenario FROM alerts WHERE id = ?1
