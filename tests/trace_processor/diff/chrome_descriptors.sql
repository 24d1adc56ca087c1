-- trace: chrome_descriptors.textproto
-- Chrome's process and thread descriptors: names from the types, the
-- process type (NULL when it has no name) and host app as process args,
-- a sandboxed tid made unique with its pid in the high bits.
SELECT upid, pid, name,
  EXTRACT_ARG(arg_set_id, 'chrome.process_type') AS type,
  EXTRACT_ARG(arg_set_id, 'chrome.host_app_package_name') AS host,
  EXTRACT_ARG(arg_set_id, 'chrome.crash_trace_id') AS crash_id
FROM process ORDER BY upid;
SELECT utid, tid, name, upid FROM thread ORDER BY utid;
SELECT s.name, t.tid FROM slice s JOIN thread_track tt ON s.track_id = tt.id
JOIN thread t USING (utid);
