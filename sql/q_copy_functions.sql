-- db copy: functions after id ?1, a page at a time (a history may hold
-- millions).
SELECT id, name, module FROM functions WHERE id > ?1 ORDER BY id LIMIT 20000
