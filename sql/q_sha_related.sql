-- Stored commit ids that name the same commit as ?1 when both are right:
-- those that are a prefix of it, and those it is a prefix of.
SELECT DISTINCT git_sha FROM runs
WHERE git_sha = substr(?1, 1, length(git_sha))
   OR substr(git_sha, 1, length(?1)) = ?1
