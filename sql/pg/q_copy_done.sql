-- db copy, last: rows came with their ids, so the identity sequences
-- move past them for the next ingest.
SELECT setval(pg_get_serial_sequence('runs', 'id'),
              coalesce((SELECT max(id) FROM runs), 0) + 1, false),
       setval(pg_get_serial_sequence('functions', 'id'),
              coalesce((SELECT max(id) FROM functions), 0) + 1, false),
       setval(pg_get_serial_sequence('alerts', 'id'),
              coalesce((SELECT max(id) FROM alerts), 0) + 1, false)
