-- Disk request latency per host and device (major:minor), from the
-- block_io slices (block_io_start to block_io_done), in microseconds.
SELECT host, device, count() AS requests,
    round(quantileExact(0.5)(dur) / 1000, 1) AS p50_us,
    round(quantileExact(0.99)(dur) / 1000, 1) AS p99_us,
    round(max(dur) / 1000, 1) AS max_us
FROM (
    SELECT trace_id, dur,
        concat(toString(bitShiftRight(dev, 20)), ':',
            toString(bitAnd(dev, 1048575))) AS device
    FROM slice
    ANY INNER JOIN (SELECT trace_id, id AS track_id, block_device AS dev
        FROM track WHERE type = 'block_io') USING (trace_id, track_id)
    WHERE name = 'block_io' AND dur >= 0
)
ANY INNER JOIN (SELECT trace_id, host FROM traces) USING trace_id
GROUP BY host, device
ORDER BY host, device
