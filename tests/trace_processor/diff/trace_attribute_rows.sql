-- trace: trace_attributes.textproto
-- Trace attributes are rows of the machine and the trace.
SELECT name, key_type, int_value, str_value, machine_id, trace_id
FROM metadata WHERE name GLOB 'trace_attribute.*' ORDER BY id;
