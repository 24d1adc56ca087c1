-- trace: heap_profile.textproto
SELECT ts, ts_end, dur, p.pid, heap_name FROM heap_profile JOIN process p
  USING(upid) ORDER BY ts_end;
SELECT a.ts, p.pid, a.heap_name, f.name, a.count, a.size
FROM heap_profile_allocation a JOIN process p USING(upid)
JOIN stack_profile_callsite c ON a.callsite_id = c.id
JOIN stack_profile_frame f ON c.frame_id = f.id ORDER BY a.id;
SELECT name, build_id, start, end FROM stack_profile_mapping;
SELECT name, idx, value FROM stats
WHERE name IN ('heapprofd_missing_packet', 'heapprofd_malformed_packet',
  'symbolization_tmp_build_id_not_found') ORDER BY name;
