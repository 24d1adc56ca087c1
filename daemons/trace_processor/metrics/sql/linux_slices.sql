-- linux_slices: duration statistics of slices per name.
DROP VIEW IF EXISTS linux_slices_output;

CREATE VIEW linux_slices_output AS
SELECT LinuxSliceMetric(
  'slice', (
    SELECT RepeatedField(LinuxSliceMetric_Name(
      'name', name,
      'count', cnt,
      'total_dur_ns', total,
      'p50_ns', p50, 'p90_ns', p90, 'p99_ns', p99,
      'max_ns', mx, 'min_ns', mn))
    FROM (
      SELECT name, COUNT() AS cnt, SUM(dur) AS total,
        MIN(CASE WHEN rn * 100 >= n * 50 THEN dur END) AS p50,
        MIN(CASE WHEN rn * 100 >= n * 90 THEN dur END) AS p90,
        MIN(CASE WHEN rn * 100 >= n * 99 THEN dur END) AS p99,
        MAX(dur) AS mx, MIN(dur) AS mn
      FROM (
        SELECT name, dur,
          ROW_NUMBER() OVER (PARTITION BY name ORDER BY dur) AS rn,
          COUNT() OVER (PARTITION BY name) AS n
        FROM slice WHERE dur >= 0 AND name IS NOT NULL)
      GROUP BY name
      ORDER BY total DESC, name))
);
