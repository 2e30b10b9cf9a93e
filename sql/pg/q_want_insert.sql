-- Functions new to the history get ids in the order of first use, as
-- ingest gives them one by one on SQLite (the writers' lock is held).
INSERT INTO functions (name, module)
SELECT w.name, w.module FROM want_functions w
WHERE NOT EXISTS (SELECT 1 FROM functions f
                  WHERE f.name = w.name AND f.module = w.module)
ORDER BY w.ord
