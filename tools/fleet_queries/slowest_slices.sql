-- The 10 slowest app slices across all traces: which host, which slice,
-- when in its trace.
SELECT host, name, round(dur / 1e6, 3) AS dur_ms, ts, trace_id
FROM slice
ANY INNER JOIN (SELECT trace_id, host FROM traces) USING trace_id
WHERE category = 'app' AND dur >= 0
ORDER BY dur DESC, host, ts
LIMIT 10
