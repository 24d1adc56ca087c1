-- trace: json_events.json
SELECT o.name AS from_slice, i.name AS to_slice
FROM flow f JOIN slice o ON o.id = f.slice_out JOIN slice i ON i.id = f.slice_in
ORDER BY f.id;
