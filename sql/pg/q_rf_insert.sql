-- A run's function rows travel by COPY: each step of this statement adds
-- a row, sent in bulk before the next other statement (db_pg.h).
COPY run_functions (run_id, func_id, self_n, total_n, self_w, total_w) FROM STDIN
