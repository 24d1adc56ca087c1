-- The example app's slowest slices, with where they nest
SELECT printf('%.2f', s.dur / 1e6) AS dur_ms, s.name, s.depth,
       IFNULL((SELECT GROUP_CONCAT(a.name, ' > ')
               FROM (SELECT name FROM ancestor_slice(s.id) ORDER BY depth) a)
              || ' > ', '') || s.name AS nesting,
       IFNULL(t.name, tr.name) AS track
FROM slice s
LEFT JOIN thread_track tt ON s.track_id = tt.id
LEFT JOIN track tr ON s.track_id = tr.id
LEFT JOIN thread t USING (utid)
WHERE s.dur > 0
ORDER BY s.dur DESC
LIMIT 10;
