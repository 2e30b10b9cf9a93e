-- A stored run under the key and metadata its bundle now gives.
UPDATE runs SET git_sha = ?2, scenario = ?3, cache = ?4, commit_date = ?5,
                run_date = ?6, host = ?7, build_meta = ?8
WHERE id = ?1
