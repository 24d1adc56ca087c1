-- android.gpu.work_period: GPU work periods per uid, as upstream's module of that name.
--
-- faro records Linux traces: no Android data source feeds this module. It
-- exists with upstream's names and columns so that clients including it
-- (the Perfetto UI's plugins) get no rows rather than an error.

CREATE PERFETTO TABLE android_gpu_work_period_track(
  id LONG,
  machine_id JOINID(machine.id),
  uid LONG,
  ugpu LONG,
  gpu_id LONG
)
AS
SELECT
  NULL AS id,
  NULL AS machine_id,
  NULL AS uid,
  NULL AS ugpu,
  NULL AS gpu_id
WHERE 0;
