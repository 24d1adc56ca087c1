-- trace: system.textproto
-- What the UI reads about the trace and its machine: metadata with the
-- machine and trace each key belongs to, the machine row, the metadata
-- and bounds functions, threads with their idle and kernel flags.
SELECT name, machine_id, trace_id FROM metadata
WHERE name NOT IN ('trace_uuid', 'trace_size_bytes')
ORDER BY name;
-- (num_cpus is left out: ours counts the cpu table, upstream reads
-- SystemInfo.num_cpus, absent here.)
SELECT id, raw_id, name, sysname, release, version, arch,
  android_build_fingerprint, android_device_manufacturer,
  android_sdk_version, system_ram_bytes, system_ram_gb, label_index
FROM machine;
SELECT extract_metadata('system_release') AS rel,
  extract_metadata('timezone_off_mins') AS tz,
  extract_metadata('no_such_key') AS missing,
  extract_metadata_for_machine(0, 'system_name') AS sysname,
  extract_metadata_for_trace(0, 'trace_type') AS type,
  trace_start() AS s, trace_end() AS e, trace_dur() AS d;
INCLUDE PERFETTO MODULE std.traceinfo.trace;
SELECT trace_id, trace_type, machines FROM _metadata_by_trace;
INCLUDE PERFETTO MODULE viz.threads;
SELECT utid, tid, name, upid, is_main_thread, is_idle, machine_id,
  is_kernel_thread
FROM _threads_with_kernel_flag ORDER BY utid;
SELECT upid, pid, machine_id FROM process ORDER BY upid;
SELECT * FROM __intrinsic_trace_file;
