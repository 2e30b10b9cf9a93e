-- db copy: functions under their own ids, in bulk.
COPY functions (id, name, module) FROM STDIN
