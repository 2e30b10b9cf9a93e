SELECT id FROM functions WHERE name = ?1 AND module = ?2
