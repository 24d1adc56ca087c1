-- linux.cpu.frequency: periods during which a CPU's frequency holds.

INCLUDE PERFETTO MODULE counters.intervals;

-- One row per period of constant frequency of a CPU ('cpufreq' counter
-- tracks): counter id, track, start, length, frequency in kHz (NULL when
-- unknown), unique CPU and CPU number.
CREATE PERFETTO TABLE cpu_frequency_counters(
  id LONG,
  track_id JOINID(track.id),
  ts TIMESTAMP,
  dur DURATION,
  freq LONG,
  ucpu LONG,
  cpu LONG
)
AS
SELECT
  iv.id,
  iv.track_id,
  iv.ts,
  iv.dur,
  CAST(iv.value AS INT) AS freq,
  c.ucpu,
  t.cpu
FROM counter_leading_intervals!((
  SELECT v.id, v.ts, v.track_id, v.value
  FROM counter AS v
  JOIN cpu_counter_track AS f ON f.id = v.track_id AND f.name = 'cpufreq'
)) AS iv
JOIN cpu_counter_track AS t ON t.id = iv.track_id
JOIN cpu AS c ON c.cpu = t.cpu AND c.machine_id IS t.machine_id;
