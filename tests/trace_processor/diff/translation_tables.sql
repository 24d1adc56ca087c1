-- trace: translation_tables.textproto
-- Translation tables rename slices and process tracks; Chrome triggers
-- are instants with their hash, the study it stands for, and end a flow.
SELECT s.ts, s.name, t.name AS track, t.type
FROM slice s JOIN track t ON s.track_id = t.id ORDER BY s.ts;
SELECT name FROM process_counter_track;
SELECT s.ts, a.key, a.display_value
FROM slice s JOIN args a USING (arg_set_id)
WHERE a.key GLOB 'chrome_trigger.*' ORDER BY s.ts, a.id;
SELECT so.name AS from_slice, si.name AS to_slice
FROM flow f JOIN slice so ON f.slice_out = so.id
JOIN slice si ON f.slice_in = si.id;
SELECT name, key_type, int_value, machine_id, trace_id FROM metadata
WHERE name GLOB 'cr-*' ORDER BY id;
