-- As sql/0002_stack_ids.sql: stack trees name functions by history ids.
ALTER TABLE run_stacks ADD COLUMN ids bigint NOT NULL DEFAULT 0;
