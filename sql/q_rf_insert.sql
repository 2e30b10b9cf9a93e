INSERT INTO run_functions (run_id, func_id, self_n, total_n, self_w, total_w)
VALUES (?1, ?2, ?3, ?4, ?5, ?6)
