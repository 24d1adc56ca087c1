-- Disk request latency by kind (block_rq_issue to its block_rq_complete)
-- A request is matched to the first completion of the same device and
-- sector at or after its issue; R/W/D/F are read, write, discard, flush.
WITH issue AS (
  SELECT e.ts,
         EXTRACT_ARG(e.arg_set_id, 'dev') AS dev,
         EXTRACT_ARG(e.arg_set_id, 'sector') AS sector,
         EXTRACT_ARG(e.arg_set_id, 'nr_sector') AS nr_sector,
         SUBSTR(EXTRACT_ARG(e.arg_set_id, 'rwbs'), 1, 1) AS kind
  FROM ftrace_event e WHERE e.name = 'block_rq_issue'),
complete AS (
  SELECT e.ts,
         EXTRACT_ARG(e.arg_set_id, 'dev') AS dev,
         EXTRACT_ARG(e.arg_set_id, 'sector') AS sector
  FROM ftrace_event e WHERE e.name = 'block_rq_complete'),
req AS (
  SELECT i.kind, i.nr_sector,
         (SELECT MIN(c.ts) FROM complete c WHERE c.dev = i.dev
            AND c.sector = i.sector AND c.ts >= i.ts) - i.ts AS lat
  FROM issue i)
SELECT kind, COUNT(*) AS requests,
       printf('%.2f', SUM(nr_sector) * 512 / 1048576.0) AS mb,
       printf('%.2f', AVG(lat) / 1e6) AS avg_ms,
       printf('%.2f', MAX(lat) / 1e6) AS max_ms
FROM req WHERE lat IS NOT NULL
GROUP BY kind ORDER BY requests DESC;
