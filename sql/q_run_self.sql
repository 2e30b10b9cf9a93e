-- One run's self numbers per function id, for the function ids in
-- [?2, ?3) (two threads read halves of a window); a NULL self_w is
-- self_n times the run's interval, derived by the reader.
SELECT func_id, self_w, self_n
FROM run_functions
WHERE run_id = ?1 AND func_id >= ?2 AND func_id < ?3
