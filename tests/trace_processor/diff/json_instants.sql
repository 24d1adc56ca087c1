-- trace: json_instants.json
-- Zero-duration slices: an instant holds another instant of its time as
-- a child; anything else at its time pops it (upstream's stack rule).
SELECT s.ts, s.dur, s.name, s.depth, p.name AS parent
FROM slice s LEFT JOIN slice p ON p.id = s.parent_id
ORDER BY s.ts, s.depth, s.name;
