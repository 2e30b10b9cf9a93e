-- One run's self weight per function id (?2 is the run's interval).
SELECT func_id, coalesce(self_w, self_n * ?2, 0)
FROM run_functions
WHERE run_id = ?1
