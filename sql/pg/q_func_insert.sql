-- PostgreSQL gives the new id back with the row.
INSERT INTO functions (name, module) VALUES (?1, ?2) RETURNING id
