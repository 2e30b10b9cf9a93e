-- db copy: one alert as it was.
INSERT INTO alerts (id, grp, scenario, cache, tool, sha, good_sha, what,
                    names, change, improves, state, note, who, changed_at,
                    first_seen, fixed_by)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15,
        ?16, ?17)
