-- trace: json_events.json
-- The *_duration_ns stats time the importer's own run: left out.
SELECT name, value FROM stats WHERE value > 0
  AND name NOT GLOB '*_duration_ns' ORDER BY name;
