-- trace: screen_state.textproto
-- The initial display state and the ScreenState atrace counter share one
-- global counter track (type screen_state), not a process's.
SELECT t.name, t.type, c.ts, c.value FROM counter c
JOIN counter_track t ON c.track_id = t.id ORDER BY c.ts;
SELECT name, type FROM process_counter_track ORDER BY name;
