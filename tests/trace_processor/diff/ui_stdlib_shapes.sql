-- trace: system.textproto
-- The modules the UI's plugins include, with upstream's columns (most
-- are empty on a Linux trace, as upstream's are), and the tables they
-- read that faro never fills.
INCLUDE PERFETTO MODULE viz.threads;
SELECT * FROM _threads_with_kernel_flag LIMIT 0;
INCLUDE PERFETTO MODULE android.anrs;
SELECT * FROM android_anrs LIMIT 0;
INCLUDE PERFETTO MODULE android.memory.dmabuf;
SELECT * FROM android_memory_cumulative_dmabuf LIMIT 0;
INCLUDE PERFETTO MODULE android.monitor_contention;
SELECT * FROM android_monitor_contention LIMIT 0;
INCLUDE PERFETTO MODULE android.kernel_wakelocks;
SELECT * FROM android_kernel_wakelocks LIMIT 0;
INCLUDE PERFETTO MODULE android.startup.startups;
SELECT * FROM android_startups LIMIT 0;
INCLUDE PERFETTO MODULE android.cpu.cpu_per_uid;
SELECT * FROM android_cpu_per_uid_track LIMIT 0;
INCLUDE PERFETTO MODULE android.gpu.work_period;
SELECT * FROM android_gpu_work_period_track LIMIT 0;
INCLUDE PERFETTO MODULE android.memory.heap_profile.intervals;
SELECT * FROM _android_heap_profile_intervals LIMIT 0;
INCLUDE PERFETTO MODULE android.cpu.cluster_type;
SELECT * FROM android_cpu_cluster_mapping LIMIT 0;
INCLUDE PERFETTO MODULE wattson.windows;
SELECT * FROM wattson_window_markers LIMIT 0;
INCLUDE PERFETTO MODULE wattson.device_infos;
SELECT * FROM _wattson_device LIMIT 0;
INCLUDE PERFETTO MODULE android.gpu.frequency;
SELECT * FROM android_gpu_frequency LIMIT 0;
INCLUDE PERFETTO MODULE wattson.gpu.freq_idle;
SELECT * FROM _gpu_power_state LIMIT 0;
INCLUDE PERFETTO MODULE wattson.curves.utils;
SELECT * FROM _gpu_filtered_curves LIMIT 0;
INCLUDE PERFETTO MODULE wattson.tpu.freq_idle;
SELECT * FROM _tpu_freq LIMIT 0;
INCLUDE PERFETTO MODULE android.process_metadata;
SELECT * FROM android_process_metadata LIMIT 0;
INCLUDE PERFETTO MODULE linux.cpu.idle_time_in_state;
SELECT * FROM linux_cpu_idle_time_in_state_counters LIMIT 0;
INCLUDE PERFETTO MODULE linux.cpu.idle_time_in_state;
SELECT * FROM linux_per_cpu_idle_time_in_state_counters LIMIT 0;
INCLUDE PERFETTO MODULE android.entity_state_residency;
SELECT * FROM android_entity_state_residency LIMIT 0;
INCLUDE PERFETTO MODULE linux.systemd_journald;
SELECT * FROM linux_systemd_journald_logs LIMIT 0;
INCLUDE PERFETTO MODULE android.power_rails;
SELECT * FROM android_power_rails_metadata LIMIT 0;
INCLUDE PERFETTO MODULE android.screenshots;
SELECT * FROM android_screenshots LIMIT 0;
SELECT * FROM gpu LIMIT 0;
SELECT * FROM state LIMIT 0;
SELECT * FROM gpu_counter_track LIMIT 0;
SELECT * FROM gpu_counter_group LIMIT 0;
SELECT * FROM perf_counter_track LIMIT 0;
SELECT * FROM stack_sample_counter_track LIMIT 0;
SELECT * FROM stack_sample LIMIT 0;
SELECT * FROM stack_sample_session LIMIT 0;
SELECT * FROM perf_sample LIMIT 0;
SELECT * FROM heap_profile_allocation LIMIT 0;
SELECT * FROM heap_graph LIMIT 0;
SELECT * FROM heap_graph_object LIMIT 0;
SELECT * FROM heap_graph_class LIMIT 0;
SELECT * FROM heap_graph_reference LIMIT 0;
SELECT * FROM package_list LIMIT 0;
SELECT * FROM android_logs LIMIT 0;
SELECT * FROM process_memory_snapshot LIMIT 0;
SELECT * FROM memory_snapshot LIMIT 0;
SELECT * FROM memory_snapshot_node LIMIT 0;
SELECT * FROM profiler_smaps LIMIT 0;
SELECT * FROM process_memory_mappings LIMIT 0;
SELECT * FROM __intrinsic_trace_diagnostics LIMIT 0;
SELECT * FROM __intrinsic_video_frames LIMIT 0;
SELECT * FROM __intrinsic_aggregate_profile LIMIT 0;
SELECT * FROM __intrinsic_stdlib_objects LIMIT 0;
INCLUDE PERFETTO MODULE android.aflags;
SELECT * FROM android_aflags LIMIT 0;
SELECT * FROM android_game_intervention_list LIMIT 0;
SELECT * FROM _trace_import_logs LIMIT 0;
-- The stats the trace info page lists, with the machine and trace each
-- is about (a few are the whole session's).
SELECT name, idx, value, machine_id, trace_id FROM stats
WHERE name IN ('heap_graph_non_finalized_graph',
  'sorter_push_event_out_of_order', 'traced_buf_bytes_written',
  'traced_producers_connected')
ORDER BY name, idx;
