-- The bundle's functions, in bulk (db_pg.h: a COPY statement).
COPY want_functions (ord, name, module) FROM STDIN
