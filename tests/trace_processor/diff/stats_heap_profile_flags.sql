-- trace: heap_profile_flags.textproto
-- A heap dump's process stats, by pid, in the order upstream sets them.
SELECT id, name, idx, severity, value FROM stats
WHERE name LIKE 'heapprofd%' AND idx IS NOT NULL ORDER BY id
