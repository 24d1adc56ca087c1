-- android.process_metadata: one row per process with its uid and the
-- package behind it, as upstream's module of that name. faro records no
-- package list, so the package columns stay empty; the rest comes from
-- the process table.

-- Processes of the kernel: the idle task (pid 0), kthreadd's children and
-- the children of pid 0.
CREATE PERFETTO TABLE _android_kernel_tasks(
  upid LONG
)
AS
SELECT p.upid
FROM process AS p
LEFT JOIN process AS parent ON p.parent_upid = parent.upid
WHERE p.pid = 0 OR parent.pid = 0 OR parent.name = 'kthreadd'
ORDER BY 1;

-- 1 when the process is one of the kernel's.
CREATE PERFETTO FUNCTION android_is_kernel_task(upid LONG)
RETURNS BOOL AS
SELECT EXISTS(SELECT 1 FROM _android_kernel_tasks WHERE upid = $upid);

CREATE PERFETTO TABLE android_process_metadata(
  upid JOINID(process.id),
  pid LONG,
  process_name STRING,
  uid LONG,
  user_id LONG,
  user_type STRING,
  shared_uid BOOL,
  package_name STRING,
  version_code LONG,
  debuggable LONG,
  is_kernel_task BOOL
)
AS
SELECT
  p.upid,
  p.pid,
  p.name AS process_name,
  p.android_appid AS uid,
  p.uid / 100000 AS user_id,
  NULL AS user_type,
  NULL AS shared_uid,
  pkg.package_name,
  pkg.version_code,
  pkg.debuggable,
  android_is_kernel_task(p.upid) AS is_kernel_task
FROM process AS p
LEFT JOIN package_list AS pkg ON pkg.uid = p.android_appid
ORDER BY p.upid;
