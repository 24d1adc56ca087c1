-- trace: multi_machine.textproto
-- Every stat upstream knows has a row: the session's once, each machine's
-- single stats once per machine, ids in that order, upstream's keys.
SELECT machine_id, trace_id, COUNT(*) AS n, MIN(id) AS first,
  MAX(id) AS last, MIN(key) AS min_key, MAX(key) AS max_key
FROM stats WHERE idx IS NULL
GROUP BY machine_id, trace_id ORDER BY first
