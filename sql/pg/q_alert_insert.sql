-- As sql/q_alert_insert.sql, giving the new id back.
INSERT INTO alerts (grp, scenario, cache, tool, sha, good_sha, what, names,
                    change, improves, state, note, who, changed_at,
                    first_seen, fixed_by)
VALUES (coalesce(?1, 0), ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,
        ?14, ?15, ?16)
RETURNING id
