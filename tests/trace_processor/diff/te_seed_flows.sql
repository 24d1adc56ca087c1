-- trace: te_seed_flows.textproto
SELECT so.name AS from_slice, tout.name AS from_thread, si.name AS to_slice,
  tin.name AS to_thread
FROM flow f
JOIN slice so ON f.slice_out = so.id
JOIN slice si ON f.slice_in = si.id
JOIN thread_track a ON so.track_id = a.id
JOIN thread tout ON a.utid = tout.utid
JOIN thread_track b ON si.track_id = b.id
JOIN thread tin ON b.utid = tin.utid
ORDER BY f.id;
