-- android.gpu.frequency: GPU frequency, as upstream's module of that name.
--
-- faro records Linux traces: no Android data source feeds this module. It
-- exists with upstream's names and columns so that clients including it
-- (the Perfetto UI's plugins) get no rows rather than an error.

CREATE PERFETTO TABLE android_gpu_frequency(
  ts TIMESTAMP,
  dur DURATION,
  gpu_id LONG,
  gpu_freq LONG,
  prev_gpu_freq LONG,
  next_gpu_freq LONG
)
AS
SELECT
  NULL AS ts,
  NULL AS dur,
  NULL AS gpu_id,
  NULL AS gpu_freq,
  NULL AS prev_gpu_freq,
  NULL AS next_gpu_freq
WHERE 0;
