-- linux.threads: kernel threads.

-- Threads of the kernel: those of kthreadd (pid 2) and of the processes
-- it started, with their process' data (kernel threads are processes).
CREATE PERFETTO TABLE linux_kernel_threads(
  upid JOINID(process.id),
  utid JOINID(thread.id),
  pid LONG,
  tid LONG,
  process_name STRING,
  thread_name STRING,
  machine_id JOINID(machine.id)
)
AS
WITH
  kthreadd AS (
    SELECT upid, pid, name, machine_id FROM process WHERE pid = 2
  ),
  kernel_procs AS (
    SELECT p.upid, p.pid, p.name, p.machine_id
    FROM process AS p
    JOIN kthreadd AS k ON p.parent_upid = k.upid
    UNION
    SELECT upid, pid, name, machine_id FROM kthreadd
  )
SELECT
  p.upid,
  t.utid,
  p.pid,
  t.tid,
  p.name AS process_name,
  t.name AS thread_name,
  p.machine_id
FROM kernel_procs AS p
JOIN thread AS t USING (upid);
