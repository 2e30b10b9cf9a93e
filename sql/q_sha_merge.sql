-- A commit stored by a prefix (?3) joins its full id (?1), taking the
-- commit date when it had none.
UPDATE runs SET git_sha = ?1, commit_date = coalesce(commit_date, ?2)
WHERE git_sha = ?3
