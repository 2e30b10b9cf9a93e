-- A new group is numbered by its first row.
UPDATE alerts SET grp = id WHERE id = ?1
