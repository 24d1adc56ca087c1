-- linux_memory: resident memory per process from the mem.rss counters.
DROP VIEW IF EXISTS linux_memory_output;
DROP TABLE IF EXISTS _linux_mem_rss;

-- Each sample holds until the next one, the last until the trace ends.
CREATE TABLE _linux_mem_rss AS
SELECT t.upid AS upid, c.ts AS ts, c.value AS value,
  IFNULL(LEAD(c.ts) OVER (PARTITION BY c.track_id ORDER BY c.ts),
    MAX(c.ts, IFNULL((SELECT end_ts FROM trace_bounds), c.ts))) - c.ts
    AS held,
  ROW_NUMBER() OVER (PARTITION BY c.track_id ORDER BY c.ts DESC) AS from_end
FROM counter c JOIN process_counter_track t ON c.track_id = t.id
WHERE t.name = 'mem.rss';

CREATE VIEW linux_memory_output AS
SELECT LinuxMemoryMetric(
  'process', (
    SELECT RepeatedField(LinuxMemoryMetric_Process(
      'pid', p.pid,
      'name', p.name,
      'rss_peak_bytes', CAST(p.peak AS INT),
      'rss_avg_bytes', CAST(p.avg AS INT),
      'rss_last_bytes', CAST(p.last AS INT),
      'samples', p.samples,
      'swap_peak_bytes', (SELECT CAST(MAX(c.value) AS INT)
        FROM counter c JOIN process_counter_track t ON c.track_id = t.id
        WHERE t.name = 'mem.swap' AND t.upid = p.upid)))
    FROM (
      SELECT pr.upid AS upid, pr.pid AS pid, pr.name AS name,
        MAX(m.value) AS peak,
        CASE WHEN SUM(m.held) > 0 THEN SUM(m.value * m.held) / SUM(m.held)
          ELSE AVG(m.value) END AS avg,
        MAX(CASE WHEN m.from_end = 1 THEN m.value END) AS last,
        COUNT() AS samples
      FROM _linux_mem_rss m JOIN process pr USING (upid)
      GROUP BY pr.upid
      ORDER BY peak DESC, pr.pid) p)
);
