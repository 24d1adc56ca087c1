-- Scheduling latency per host and kernel: how long threads stayed
-- Runnable (woken, or preempted) before they ran, in microseconds.
-- quantileExact: exact percentiles (nearest rank, floor(level * count)).
SELECT host, kernel, count() AS waits,
    round(quantileExact(0.5)(dur) / 1000, 1) AS p50_us,
    round(quantileExact(0.9)(dur) / 1000, 1) AS p90_us,
    round(quantileExact(0.99)(dur) / 1000, 1) AS p99_us,
    round(max(dur) / 1000, 1) AS max_us
FROM thread_state
ANY INNER JOIN (SELECT trace_id, host, kernel FROM traces) USING trace_id
WHERE state IN ('R', 'R+') AND dur >= 0
GROUP BY host, kernel
ORDER BY p99_us DESC, host
