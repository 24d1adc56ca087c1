-- trace: system.textproto
SELECT name, key_type, int_value, str_value FROM metadata
WHERE name != 'trace_size_bytes' ORDER BY id;
