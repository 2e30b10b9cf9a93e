-- db copy: one run's stack tree.
SELECT run_id, nodes, tree, ids FROM run_stacks WHERE run_id = ?1
