-- db copy, last: nothing to do on SQLite, whose next id follows the
-- largest stored one by itself.
SELECT 1
