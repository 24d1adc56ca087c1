-- trace: json_events.json
SELECT name, value FROM stats WHERE value > 0 ORDER BY name;
