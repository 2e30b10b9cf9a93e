SELECT name, module FROM functions WHERE id = ?1
