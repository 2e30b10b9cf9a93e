-- One run's per-function numbers, with derived values filled in.
SELECT f.name, f.module,
       coalesce(rf.self_w, rf.self_n * r.interval),
       coalesce(rf.total_w, rf.total_n * r.interval),
       coalesce(rf.self_n, rf.self_w / r.interval),
       coalesce(rf.total_n, rf.total_w / r.interval)
FROM run_functions rf
JOIN runs r ON r.id = rf.run_id
JOIN functions f ON f.id = rf.func_id
WHERE rf.run_id = ?1
