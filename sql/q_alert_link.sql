-- The improvement (group ?2) that undid regression group ?1.
UPDATE alerts SET fixed_by = ?2 WHERE grp = ?1
