-- linux_cpu: CPU time per process and thread from ended scheduling
-- slices, and scheduling latency from runnable periods.
DROP VIEW IF EXISTS linux_cpu_output;
DROP TABLE IF EXISTS _linux_cpu_thread;
DROP TABLE IF EXISTS _linux_cpu_wait;
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

-- One row per runnable period, ranked within its thread and process.
CREATE TABLE _linux_cpu_wait AS
SELECT ts.utid AS utid, t.upid AS upid, ts.dur AS dur,
  ROW_NUMBER() OVER (PARTITION BY ts.utid ORDER BY ts.dur) AS trn,
  COUNT() OVER (PARTITION BY ts.utid) AS tcnt,
  ROW_NUMBER() OVER (PARTITION BY t.upid ORDER BY ts.dur) AS prn,
  COUNT() OVER (PARTITION BY t.upid) AS pcnt
FROM thread_state ts JOIN thread t USING (utid)
WHERE ts.state IN ('R', 'R+') AND ts.dur >= 0 AND t.tid != 0;

-- The latency message per thread (kind 't') and per process (kind 'p').
CREATE TABLE _linux_cpu_lat AS
SELECT 't' AS kind, utid AS id, LinuxSchedLatency(
    'count', COUNT(), 'total_ns', SUM(dur), 'avg_ns', SUM(dur) / COUNT(),
    'p50_ns', MIN(CASE WHEN trn * 100 >= tcnt * 50 THEN dur END),
    'p90_ns', MIN(CASE WHEN trn * 100 >= tcnt * 90 THEN dur END),
    'p99_ns', MIN(CASE WHEN trn * 100 >= tcnt * 99 THEN dur END),
    'max_ns', MAX(dur)) AS msg
FROM _linux_cpu_wait GROUP BY utid
UNION ALL
SELECT 'p', upid, LinuxSchedLatency(
    'count', COUNT(), 'total_ns', SUM(dur), 'avg_ns', SUM(dur) / COUNT(),
    'p50_ns', MIN(CASE WHEN prn * 100 >= pcnt * 50 THEN dur END),
    'p90_ns', MIN(CASE WHEN prn * 100 >= pcnt * 90 THEN dur END),
    'p99_ns', MIN(CASE WHEN prn * 100 >= pcnt * 99 THEN dur END),
    'max_ns', MAX(dur))
FROM _linux_cpu_wait WHERE upid IS NOT NULL GROUP BY upid;

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
