-- The 10 slowest app slices (slices of user-space processes) across all
-- traces: which host and process, which slice, when in its trace.
SELECT host, process, name, round(dur / 1e6, 3) AS dur_ms, ts, trace_id
FROM (
    SELECT trace_id, name, dur, ts, process
    FROM slice
    ANY INNER JOIN (SELECT trace_id, upid, ifNull(name, '') AS process
        FROM process) USING (trace_id, upid)
    WHERE dur >= 0
)
ANY INNER JOIN (SELECT trace_id, host FROM traces) USING trace_id
ORDER BY dur DESC, host, ts
LIMIT 10
