-- One function's row of one run (?1 run id, ?2 function id), through the
-- table's key; no row when the run has no such function.
SELECT self_n, total_n, self_w, total_w
FROM run_functions
WHERE run_id = ?1 AND func_id = ?2
