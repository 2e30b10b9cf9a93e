INSERT INTO functions (name, module) VALUES (?1, ?2)
