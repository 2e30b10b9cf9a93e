-- One run's rows by function id; NULLs are derived by the reader.
SELECT func_id, self_n, total_n, self_w, total_w
FROM run_functions
WHERE run_id = ?1
