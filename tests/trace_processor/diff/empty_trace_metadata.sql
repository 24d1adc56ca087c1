-- trace: empty_trace.textproto
-- An empty file is no trace: no metadata, not even its size.
SELECT COUNT(*) AS n FROM metadata;
