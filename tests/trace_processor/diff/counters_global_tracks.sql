-- trace: system.textproto
INCLUDE PERFETTO MODULE counters.global_tracks;
SELECT name, type, _counter_track_is_only_name_dimension(id) AS only_name
FROM counter_track ORDER BY name, type;
