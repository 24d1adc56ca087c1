-- trace: json_metadata.json
SELECT name, int_value, str_value FROM metadata
WHERE name GLOB 'json_metadata.*' ORDER BY name;
SELECT count(*) AS slices FROM slice;
