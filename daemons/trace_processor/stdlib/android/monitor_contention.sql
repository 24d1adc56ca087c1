-- android.monitor_contention: ART monitor contention, as upstream's module of that name.
--
-- faro records Linux traces: no Android data source feeds this module. It
-- exists with upstream's names and columns so that clients including it
-- (the Perfetto UI's plugins) get no rows rather than an error.

CREATE PERFETTO TABLE android_monitor_contention(
  blocking_method STRING,
  blocked_method STRING,
  short_blocking_method STRING,
  short_blocked_method STRING,
  blocking_src STRING,
  blocked_src STRING,
  waiter_count LONG,
  blocked_utid JOINID(thread.id),
  blocked_thread_name STRING,
  blocking_utid JOINID(thread.id),
  blocking_thread_name STRING,
  blocking_tid LONG,
  upid JOINID(process.id),
  process_name STRING,
  id LONG,
  ts TIMESTAMP,
  dur DURATION,
  monotonic_dur DURATION,
  track_id JOINID(track.id),
  is_blocked_thread_main LONG,
  blocked_thread_tid LONG,
  is_blocking_thread_main LONG,
  blocking_thread_tid LONG,
  binder_reply_id LONG,
  binder_reply_ts TIMESTAMP,
  binder_reply_tid LONG,
  pid LONG,
  lock_name STRING
)
AS
SELECT
  NULL AS blocking_method,
  NULL AS blocked_method,
  NULL AS short_blocking_method,
  NULL AS short_blocked_method,
  NULL AS blocking_src,
  NULL AS blocked_src,
  NULL AS waiter_count,
  NULL AS blocked_utid,
  NULL AS blocked_thread_name,
  NULL AS blocking_utid,
  NULL AS blocking_thread_name,
  NULL AS blocking_tid,
  NULL AS upid,
  NULL AS process_name,
  NULL AS id,
  NULL AS ts,
  NULL AS dur,
  NULL AS monotonic_dur,
  NULL AS track_id,
  NULL AS is_blocked_thread_main,
  NULL AS blocked_thread_tid,
  NULL AS is_blocking_thread_main,
  NULL AS blocking_thread_tid,
  NULL AS binder_reply_id,
  NULL AS binder_reply_ts,
  NULL AS binder_reply_tid,
  NULL AS pid,
  NULL AS lock_name
WHERE 0;
