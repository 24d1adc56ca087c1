-- android.kernel_wakelocks: kernel wakelocks, as upstream's module of that name.
--
-- faro records Linux traces: no Android data source feeds this module. It
-- exists with upstream's names and columns so that clients including it
-- (the Perfetto UI's plugins) get no rows rather than an error.

CREATE PERFETTO TABLE android_kernel_wakelocks(
  ts TIMESTAMP,
  dur DURATION,
  awake_dur DURATION,
  name STRING,
  type STRING,
  held_dur DURATION,
  held_ratio DOUBLE
)
AS
SELECT
  NULL AS ts,
  NULL AS dur,
  NULL AS awake_dur,
  NULL AS name,
  NULL AS type,
  NULL AS held_dur,
  NULL AS held_ratio
WHERE 0;
