-- android.cpu.cpu_per_uid: CPU time per Android uid and cpu cluster, from
-- CpuPerUidData packets, with upstream's module names and columns.

INCLUDE PERFETTO MODULE counters.intervals;

-- One row per uid (or shared/isolated uid range) and cluster.
CREATE PERFETTO TABLE android_cpu_per_uid_track(
  -- The track of its counters (android_cpu_per_uid_counter.track_id).
  id LONG,
  -- The uid.
  uid LONG,
  -- The cpu cluster, from 0 (larger: usually bigger cores).
  cluster LONG,
  -- CPU milliseconds the uid used on the cluster during the trace.
  total_cpu_millis LONG,
  -- A package of the uid (one of them when several share it); NULL below
  -- the first app uid (10000).
  package_name STRING
)
AS
SELECT
  t.track_id AS id,
  t.uid,
  t.cluster,
  t.total_cpu_millis,
  (
    SELECT p.package_name
    FROM package_list AS p
    WHERE p.uid = t.uid % 100000 AND p.uid >= 10000
    LIMIT 1
  ) AS package_name
FROM __intrinsic_android_cpu_per_uid_track AS t;

-- CPU use of a uid and cluster between each sample and the next.
CREATE PERFETTO VIEW android_cpu_per_uid_counter(
  -- The sample's counter id.
  id LONG,
  -- When the period starts.
  ts LONG,
  -- Until the next sample of the track.
  dur LONG,
  -- The uid and cluster's track.
  track_id LONG,
  -- CPU milliseconds used in the period.
  diff_ms LONG,
  -- Cores busy on average in the period (1.0: one core all the time).
  cpu_ratio DOUBLE
)
AS
WITH
  periods AS (
    SELECT *
    FROM counter_leading_intervals!((
      SELECT c.id, c.ts, c.track_id, c.value
      FROM counter AS c
      JOIN android_cpu_per_uid_track AS t ON t.id = c.track_id
    ))
  )
SELECT
  id,
  ts,
  dur,
  track_id,
  next_value - value AS diff_ms,
  (next_value - value) * 1e6 / dur AS cpu_ratio
FROM periods
WHERE next_value IS NOT NULL;
