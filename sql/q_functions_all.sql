-- Every stored function, for matching a name pattern.
SELECT id, name, module FROM functions
