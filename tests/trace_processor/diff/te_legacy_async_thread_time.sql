-- trace: te_legacy_async_thread_time.textproto
-- No thread time on slices of no thread; the counter on the thread.
SELECT 'slice' AS what, s.id, s.name, s.thread_ts AS a, s.thread_dur AS b
FROM slice s
UNION ALL
SELECT 'counter', c.id, t.name, c.ts, c.value
FROM counter c JOIN track t ON c.track_id = t.id
ORDER BY 1, 2;
