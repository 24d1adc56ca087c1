-- linux_cpu: CPU time per process and thread from ended scheduling
-- slices, and scheduling latency from runnable periods.
DROP VIEW IF EXISTS linux_cpu_output;
DROP TABLE IF EXISTS _linux_cpu_thread;
DROP TABLE IF EXISTS _linux_cpu_wait;
DROP TABLE IF EXISTS _linux_cpu_wait_p;
DROP TABLE IF EXISTS _linux_cpu_lat;

-- Threads that ran or waited, with their CPU time (idle threads left out).
CREATE TABLE _linux_cpu_thread AS
SELECT t.utid AS utid, t.upid AS upid, t.tid AS tid, t.name AS name,
  IFNULL(s.cpu_ns, 0) AS cpu_ns, IFNULL(s.slices, 0) AS slices
FROM thread t LEFT JOIN (
  SELECT utid, SUM(dur) AS cpu_ns, COUNT() AS slices
  FROM sched WHERE dur > 0 GROUP BY utid) s USING (utid)
WHERE t.tid != 0 AND (s.utid IS NOT NULL OR t.utid IN (
  SELECT utid FROM thread_state WHERE state IN ('R', 'R+') AND dur >= 0));
CREATE INDEX _linux_cpu_thread_upid ON _linux_cpu_thread(upid);

-- One row per runnable period, sorted per thread and per process so that
-- the k-th wait of a group is read by rowid (nearest-rank percentiles).
CREATE TABLE _linux_cpu_wait AS
SELECT ts.utid AS utid, t.upid AS upid, ts.dur AS dur
FROM thread_state ts JOIN thread t USING (utid)
WHERE ts.state IN ('R', 'R+') AND ts.dur >= 0 AND t.tid != 0
ORDER BY ts.utid, ts.dur;

CREATE TABLE _linux_cpu_wait_p AS
SELECT upid, dur FROM _linux_cpu_wait WHERE upid IS NOT NULL
ORDER BY upid, dur;

-- The latency message per thread (kind 't') and per process (kind 'p').
CREATE TABLE _linux_cpu_lat(kind TEXT, id INTEGER, msg BLOB,
  PRIMARY KEY (kind, id));
INSERT INTO _linux_cpu_lat
SELECT 't', g.utid, LinuxSchedLatency(
    'count', g.n, 'total_ns', g.total, 'avg_ns', g.total / g.n,
    'p50_ns', (SELECT dur FROM _linux_cpu_wait
      WHERE rowid = g.first + (g.n * 50 + 99) / 100 - 1),
    'p90_ns', (SELECT dur FROM _linux_cpu_wait
      WHERE rowid = g.first + (g.n * 90 + 99) / 100 - 1),
    'p99_ns', (SELECT dur FROM _linux_cpu_wait
      WHERE rowid = g.first + (g.n * 99 + 99) / 100 - 1),
    'max_ns', g.mx)
FROM (SELECT utid, MIN(rowid) AS first, COUNT() AS n, SUM(dur) AS total,
    MAX(dur) AS mx FROM _linux_cpu_wait GROUP BY utid) g;
INSERT INTO _linux_cpu_lat
SELECT 'p', g.upid, LinuxSchedLatency(
    'count', g.n, 'total_ns', g.total, 'avg_ns', g.total / g.n,
    'p50_ns', (SELECT dur FROM _linux_cpu_wait_p
      WHERE rowid = g.first + (g.n * 50 + 99) / 100 - 1),
    'p90_ns', (SELECT dur FROM _linux_cpu_wait_p
      WHERE rowid = g.first + (g.n * 90 + 99) / 100 - 1),
    'p99_ns', (SELECT dur FROM _linux_cpu_wait_p
      WHERE rowid = g.first + (g.n * 99 + 99) / 100 - 1),
    'max_ns', g.mx)
FROM (SELECT upid, MIN(rowid) AS first, COUNT() AS n, SUM(dur) AS total,
    MAX(dur) AS mx FROM _linux_cpu_wait_p GROUP BY upid) g;

CREATE VIEW linux_cpu_output AS
SELECT LinuxCpuMetric(
  'process', (
    SELECT RepeatedField(LinuxCpuMetric_Process(
      'pid', p.pid,
      'name', p.name,
      'cpu_time_ns', p.cpu_ns,
      'sched_slices', p.slices,
      'sched_latency', (SELECT msg FROM _linux_cpu_lat
        WHERE kind = 'p' AND id = p.upid),
      'thread', (
        SELECT RepeatedField(LinuxCpuMetric_Thread(
          'tid', t.tid,
          'name', t.name,
          'cpu_time_ns', t.cpu_ns,
          'sched_slices', t.slices,
          'sched_latency', (SELECT msg FROM _linux_cpu_lat
            WHERE kind = 't' AND id = t.utid)))
        FROM (SELECT * FROM _linux_cpu_thread WHERE upid = p.upid
          ORDER BY cpu_ns DESC, tid) t)))
    FROM (
      SELECT pr.upid AS upid, pr.pid AS pid, pr.name AS name,
        SUM(c.cpu_ns) AS cpu_ns, SUM(c.slices) AS slices
      FROM process pr JOIN _linux_cpu_thread c USING (upid)
      GROUP BY pr.upid
      ORDER BY cpu_ns DESC, pr.pid) p),
  'total_cpu_time_ns', (SELECT IFNULL(SUM(cpu_ns), 0) FROM _linux_cpu_thread),
  'unattributed_thread', (
    SELECT RepeatedField(LinuxCpuMetric_Thread(
      'tid', t.tid,
      'name', t.name,
      'cpu_time_ns', t.cpu_ns,
      'sched_slices', t.slices,
      'sched_latency', (SELECT msg FROM _linux_cpu_lat
        WHERE kind = 't' AND id = t.utid)))
    FROM (SELECT * FROM _linux_cpu_thread WHERE upid IS NULL
      ORDER BY cpu_ns DESC, tid) t)
);
