-- trace: json_flow_binding.json
-- A v1 "f" without "bp":"e" binds to the next slice of its thread and
-- leaves the flow open; a v2 flow_in alone leaves it open too (upstream).
SELECT o.name AS from_slice, i.name AS to_slice
FROM flow f JOIN slice o ON o.id = f.slice_out JOIN slice i ON i.id = f.slice_in
ORDER BY f.id;
