-- linux_slices: duration statistics of slices per name. Percentiles are
-- nearest-rank: the durations sorted once per name, the k-th one read by
-- rowid (k = ceil(n * p / 100)), which is much cheaper than windows.
DROP VIEW IF EXISTS linux_slices_output;
DROP TABLE IF EXISTS _linux_slices_sorted;
DROP TABLE IF EXISTS _linux_slices_name;

CREATE TABLE _linux_slices_sorted AS
SELECT name, dur FROM slice WHERE dur >= 0 AND name IS NOT NULL
ORDER BY name, dur;

CREATE TABLE _linux_slices_name AS
SELECT name, MIN(rowid) AS first, COUNT() AS n, SUM(dur) AS total,
  MAX(dur) AS mx, MIN(dur) AS mn
FROM _linux_slices_sorted GROUP BY name;

CREATE VIEW linux_slices_output AS
SELECT LinuxSliceMetric(
  'slice', (
    SELECT RepeatedField(LinuxSliceMetric_Name(
      'name', g.name,
      'count', g.n,
      'total_dur_ns', g.total,
      'p50_ns', (SELECT dur FROM _linux_slices_sorted
        WHERE rowid = g.first + (g.n * 50 + 99) / 100 - 1),
      'p90_ns', (SELECT dur FROM _linux_slices_sorted
        WHERE rowid = g.first + (g.n * 90 + 99) / 100 - 1),
      'p99_ns', (SELECT dur FROM _linux_slices_sorted
        WHERE rowid = g.first + (g.n * 99 + 99) / 100 - 1),
      'max_ns', g.mx, 'min_ns', g.mn))
    FROM (SELECT * FROM _linux_slices_name ORDER BY total DESC, name) g)
);
