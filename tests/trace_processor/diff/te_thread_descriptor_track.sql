-- trace: te_thread_descriptor_track.textproto
-- Which track a thread's TrackDescriptor becomes, as upstream decides.
SELECT s.name, t.name AS track, t.type, thread.tid
FROM slice s JOIN thread_track t ON s.track_id = t.id JOIN thread USING (utid)
ORDER BY s.ts;
