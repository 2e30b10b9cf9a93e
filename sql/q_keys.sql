-- The distinct keys (scenario, cache state, tool) of the history, or of
-- commit ?1: what a command's --scenario, --cache and --tool can be.
SELECT DISTINCT scenario, cache, tool FROM runs
WHERE CAST(?1 AS TEXT) IS NULL OR git_sha = ?1
ORDER BY scenario, cache, tool
