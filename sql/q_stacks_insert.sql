INSERT INTO run_stacks (run_id, nodes, tree, ids) VALUES (?1, ?2, ?3, 1)
