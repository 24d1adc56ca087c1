-- trace: json_metadata.json
-- A JSON trace's own metadata is the machine's and the trace's.
SELECT name, machine_id, trace_id FROM metadata
WHERE name GLOB 'json_metadata.*' ORDER BY id;
