-- Every wanted function's id.
SELECT w.ord, f.id
FROM want_functions w JOIN functions f ON f.name = w.name AND f.module = w.module
