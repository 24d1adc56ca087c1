-- std.thread.with_context: every thread with its process's identity,
-- joined once so that views over large tables join it without a LEFT JOIN.

CREATE PERFETTO TABLE _thread_with_process AS
SELECT
  t.utid,
  t.tid,
  t.name AS thread_name,
  t.is_main_thread,
  p.upid,
  p.pid,
  p.name AS process_name
FROM thread AS t
LEFT JOIN process AS p ON p.upid = t.upid;
