INSERT INTO run_stacks (run_id, nodes, tree) VALUES (?1, ?2, ?3)
