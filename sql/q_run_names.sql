-- The names of every function of one run, by id: on a server, one query
-- instead of one per function (store/load.c, map_id).
SELECT f.id, f.name, f.module
FROM run_functions rf JOIN functions f ON f.id = rf.func_id
WHERE rf.run_id = ?1
ORDER BY f.id
