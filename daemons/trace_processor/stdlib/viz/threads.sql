-- viz.threads: threads with whether they belong to the kernel, for the
-- UI's grouping of tracks, as upstream's module of that name.

INCLUDE PERFETTO MODULE linux.threads;
INCLUDE PERFETTO MODULE viz.summary.trace;

-- Kernel threads, on machines that run Linux.
CREATE PERFETTO TABLE _kernel_threads(
  utid JOINID(thread.id)
)
AS
SELECT utid FROM linux_kernel_threads
WHERE _is_linux_machine(machine_id) = 1;

CREATE PERFETTO TABLE _threads_with_kernel_flag(
  id LONG,
  utid JOINID(thread.id),
  upid JOINID(process.id),
  tid LONG,
  name STRING,
  is_main_thread BOOL,
  is_idle BOOL,
  machine_id JOINID(machine.id),
  is_kernel_thread BOOL
)
AS
SELECT
  id,
  utid,
  upid,
  tid,
  name,
  is_main_thread,
  is_idle,
  machine_id,
  utid IN (SELECT utid FROM _kernel_threads) AS is_kernel_thread
FROM thread;
