-- One run's stack tree, when it names functions by the history's ids, to
-- aggregate it as files are (system frames set apart).
SELECT nodes, tree FROM run_stacks WHERE run_id = ?1 AND ids = 1
