-- A group's new state, on every row of it (?3 or ?6 NULL keeps the
-- note or the link).
UPDATE alerts SET state = ?2, note = coalesce(?3, note), who = ?4, changed_at = ?5,
                  fixed_by = coalesce(?6, fixed_by)
WHERE grp = ?1
