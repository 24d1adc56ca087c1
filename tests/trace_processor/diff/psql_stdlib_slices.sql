-- trace: te_seed_thread.textproto
INCLUDE PERFETTO MODULE slices.with_context;
INCLUDE PERFETTO MODULE slices.self_dur;
INCLUDE PERFETTO MODULE slices.hierarchy;
INCLUDE PERFETTO MODULE viz.summary.processes;
INCLUDE PERFETTO MODULE viz.summary.track_event;
INCLUDE PERFETTO MODULE viz.summary.counters;
INCLUDE PERFETTO MODULE viz.summary.trace;
SELECT id, ts, dur, name, track_name, thread_name, tid, process_name, pid,
  depth, parent_id
FROM thread_or_process_slice ORDER BY id;
SELECT * FROM slice_self_dur ORDER BY id;
SELECT s.id AS of, a.id, a.depth FROM slice AS s, _slice_ancestor_and_self(s.id) AS a
ORDER BY s.id, a.depth;
SELECT * FROM _slice_track_summary ORDER BY id;
SELECT * FROM _thread_available_info_summary ORDER BY utid;
SELECT * FROM _process_available_info_summary ORDER BY upid;
SELECT name, is_counter, has_data, has_children, order_id
FROM _track_event_tracks_ordered_groups ORDER BY name;
SELECT count(*) AS counter_tracks FROM _counter_track_summary;
SELECT _is_linux_machine(0) AS linux;
INCLUDE PERFETTO MODULE slices.flat_slices;
SELECT * FROM _slice_flattened ORDER BY ts;
