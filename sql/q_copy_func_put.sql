-- db copy: a function under its own id (stack trees name functions by it).
INSERT INTO functions (id, name, module) VALUES (?1, ?2, ?3)
