-- A change point seen for the first time; its group and the group's
-- state come from the caller (?1 NULL: a group of its own, set after).
INSERT INTO alerts (grp, scenario, cache, tool, sha, good_sha, what, names,
                    change, improves, state, note, who, changed_at,
                    first_seen, fixed_by)
VALUES (coalesce(?1, 0), ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,
        ?14, ?15, ?16)
