-- trace: te_desc_chrome_process.textproto
SELECT pid, name,
  EXTRACT_ARG(arg_set_id, 'chrome.process_type') AS type,
  EXTRACT_ARG(arg_set_id, 'chrome.host_app_package_name') AS host,
  EXTRACT_ARG(arg_set_id, 'chrome.crash_trace_id') AS crash
FROM process WHERE pid > 0 ORDER BY pid;
