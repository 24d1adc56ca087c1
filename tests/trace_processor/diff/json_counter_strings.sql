-- trace: json_counter_strings.json
SELECT t.name, c.value FROM counter c JOIN counter_track t ON c.track_id = t.id
ORDER BY t.name;
