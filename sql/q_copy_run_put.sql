-- db copy: a run under its own id.
INSERT INTO runs (id, bundle_hash, git_sha, scenario, cache, repeat, tool,
                  format, source, unit, interval, event, total_weight,
                  total_samples, commit_date, run_date, host, build_meta)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15,
        ?16, ?17, ?18)
