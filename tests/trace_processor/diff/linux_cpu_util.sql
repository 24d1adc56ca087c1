-- trace: linux_cpu.textproto
INCLUDE PERFETTO MODULE linux.cpu.utilization.system;
INCLUDE PERFETTO MODULE linux.cpu.utilization.process;
INCLUDE PERFETTO MODULE linux.cpu.utilization.thread;
INCLUDE PERFETTO MODULE linux.cpu.utilization.slice;
SELECT t.tid, c.ucpu, c.cpu, c.millicycles, c.megacycles, c.runtime,
  c.min_freq, c.max_freq, c.avg_freq
FROM cpu_cycles_per_thread_per_cpu AS c JOIN thread AS t USING (utid)
ORDER BY t.tid, c.cpu;
SELECT t.tid, c.millicycles, c.runtime, c.min_freq, c.max_freq, c.avg_freq
FROM cpu_cycles_per_thread_per_cpu_in_interval(2000, 3000) AS c
JOIN thread AS t USING (utid) ORDER BY t.tid, c.cpu;
SELECT t.tid, c.millicycles, c.megacycles, c.runtime, c.min_freq,
  c.max_freq, c.avg_freq
FROM cpu_cycles_per_thread AS c JOIN thread AS t USING (utid) ORDER BY t.tid;
SELECT t.tid, c.millicycles, c.runtime, c.min_freq, c.max_freq, c.avg_freq
FROM cpu_cycles_per_thread_in_interval(1000, 2000) AS c
JOIN thread AS t USING (utid) ORDER BY t.tid;
SELECT p.pid, c.millicycles, c.megacycles, c.runtime, c.min_freq,
  c.max_freq, c.avg_freq
FROM cpu_cycles_per_process AS c JOIN process AS p USING (upid)
ORDER BY p.pid;
SELECT p.pid, c.millicycles, c.runtime, c.avg_freq
FROM cpu_cycles_per_process_in_interval(2200, 4000) AS c
JOIN process AS p USING (upid) ORDER BY p.pid;
SELECT * FROM cpu_cycles;
SELECT millicycles, megacycles, runtime, min_freq, max_freq, avg_freq
FROM cpu_cycles_in_interval(1300, 1000);
SELECT * FROM cpu_cycles_per_cpu ORDER BY cpu;
SELECT * FROM cpu_cycles_per_cpu_in_interval(3000, 4000) ORDER BY cpu;
SELECT * FROM cpu_utilization_per_period(2000) ORDER BY ts;
SELECT * FROM cpu_utilization_per_second;
SELECT * FROM cpu_thread_utilization_per_period(1000,
  (SELECT utid FROM thread WHERE tid = 501)) ORDER BY ts;
SELECT * FROM cpu_process_utilization_per_period(3000,
  (SELECT upid FROM process WHERE pid = 500)) ORDER BY ts;
SELECT s.name, t.tid, s.thread_name, p.pid, s.process_name, s.millicycles,
  s.megacycles
FROM cpu_cycles_per_thread_slice AS s
JOIN thread AS t USING (utid) JOIN process AS p USING (upid)
ORDER BY s.name;
SELECT s.name, t.tid, s.millicycles
FROM cpu_cycles_per_thread_slice_in_interval(2100, 3000) AS s
JOIN thread AS t USING (utid) ORDER BY s.name;
