-- db copy: every run, with its id (function rows, trees and metrics
-- refer to it).
SELECT id, bundle_hash, git_sha, scenario, cache, repeat, tool, format,
       source, unit, interval, event, total_weight, total_samples,
       commit_date, run_date, host, build_meta
FROM runs ORDER BY id
