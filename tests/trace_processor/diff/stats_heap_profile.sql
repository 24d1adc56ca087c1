-- trace: heap_profile.textproto
-- Each heap dump sets its process's stats, as upstream sets them, in that
-- order.
SELECT id, name, key, idx, value FROM stats
WHERE name LIKE 'heapprofd%' AND idx IS NOT NULL ORDER BY id
