-- viz.track_event_callstacks: the track event tracks whose events carry
-- callstacks. This trace processor does not import track event
-- callstacks, so the table has the right shape and no rows.

CREATE PERFETTO TABLE _track_event_tracks_with_callstacks(
  track_id JOINID(track.id)
) AS
SELECT NULL AS track_id
WHERE 0;
