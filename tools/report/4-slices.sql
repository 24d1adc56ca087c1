-- The slowest slices of each kind, with where they nest
WITH ranked AS (
  SELECT s.*, ROW_NUMBER() OVER (PARTITION BY s.name ORDER BY s.dur DESC) AS rn,
         COUNT(*) OVER (PARTITION BY s.name) AS n,
         AVG(s.dur) OVER (PARTITION BY s.name) AS avg_dur
  FROM slice s WHERE s.dur > 0
)
SELECT r.name, r.n AS count, printf('%.2f', r.avg_dur / 1e6) AS avg_ms,
       printf('%.2f', r.dur / 1e6) AS max_ms,
       IFNULL((SELECT GROUP_CONCAT(a.name, ' > ')
               FROM (SELECT name FROM ancestor_slice(r.id) ORDER BY depth) a)
              || ' > ', '') || r.name AS nesting,
       IFNULL(t.name, tr.name) AS track
FROM ranked r
LEFT JOIN thread_track tt ON r.track_id = tt.id
LEFT JOIN thread t USING (utid)
LEFT JOIN track tr ON r.track_id = tr.id
WHERE r.rn = 1
ORDER BY r.dur DESC
LIMIT 12;
