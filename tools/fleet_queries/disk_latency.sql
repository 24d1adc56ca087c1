-- Disk request latency per host and device (major:minor), in
-- microseconds: block_io_start to block_io_done, or block_rq_issue to the
-- block_rq_complete of its sector (the disk_request table).
SELECT host, concat(toString(bitShiftRight(device, 20)), ':',
        toString(bitAnd(device, 1048575))) AS dev,
    count() AS requests,
    round(quantileExact(0.5)(dur) / 1000, 1) AS p50_us,
    round(quantileExact(0.99)(dur) / 1000, 1) AS p99_us,
    round(max(dur) / 1000, 1) AS max_us
FROM disk_request
ANY INNER JOIN (SELECT trace_id, host FROM traces) USING trace_id
GROUP BY host, dev
ORDER BY host, dev
