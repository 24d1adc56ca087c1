-- android.anrs: Application Not Responding events, as upstream's module of that name.
--
-- faro records Linux traces: no Android data source feeds this module. It
-- exists with upstream's names and columns so that clients including it
-- (the Perfetto UI's plugins) get no rows rather than an error.

CREATE PERFETTO TABLE android_anrs(
  process_name STRING,
  pid LONG,
  upid JOINID(process.id),
  error_id STRING,
  ts TIMESTAMP,
  anr_type STRING,
  subject STRING,
  intent STRING,
  component STRING,
  timer_delay LONG,
  anr_dur_ms LONG,
  default_anr_dur_ms LONG
)
AS
SELECT
  NULL AS process_name,
  NULL AS pid,
  NULL AS upid,
  NULL AS error_id,
  NULL AS ts,
  NULL AS anr_type,
  NULL AS subject,
  NULL AS intent,
  NULL AS component,
  NULL AS timer_delay,
  NULL AS anr_dur_ms,
  NULL AS default_anr_dur_ms
WHERE 0;
