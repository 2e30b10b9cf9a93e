-- db copy: a stack tree as stored (ids says how it names functions).
INSERT INTO run_stacks (run_id, nodes, tree, ids) VALUES (?1, ?2, ?3, ?4)
