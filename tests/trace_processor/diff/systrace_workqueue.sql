-- trace: systrace.txt
-- workqueue_execute_start/end text lines: a slice named by the function on
-- the worker's thread track; a start without a name makes none.
SELECT s.ts, s.dur, s.category, s.name, t.tid FROM slice s
JOIN thread_track tt ON s.track_id = tt.id JOIN thread t USING (utid)
WHERE s.category = 'workqueue';
