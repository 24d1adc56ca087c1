-- linux.block_io: block device I/O queue depth and device numbers.

-- For each block device, how many I/O operations are in the kernel queue
-- or the device after each time the count changes (a block_io slice is
-- one operation from issue to completion; a slice without end never
-- leaves).
CREATE PERFETTO VIEW linux_active_block_io_operations_by_device(
  ts LONG,
  ops_in_queue_or_device LONG,
  dev LONG
)
AS
WITH
  ops AS (
    SELECT s.ts, s.dur,
      extract_arg(t.dimension_arg_set_id, 'block_device') AS dev
    FROM slice AS s
    JOIN track AS t ON t.id = s.track_id AND t.type = 'block_io'
  ),
  steps AS (
    SELECT ts, 1 AS delta, dev FROM ops
    UNION ALL
    SELECT ts + dur AS ts, -1 AS delta, dev FROM ops WHERE dur != -1
  ),
  per_ts AS (
    SELECT ts, SUM(delta) AS delta, dev
    FROM steps
    GROUP BY ts, dev
  )
SELECT
  ts,
  SUM(delta) OVER (PARTITION BY dev ORDER BY ts ROWS UNBOUNDED PRECEDING)
    AS ops_in_queue_or_device,
  dev
FROM per_ts
ORDER BY ts;

-- The major number (12 bits) of a userland dev_t.
CREATE PERFETTO FUNCTION linux_device_major_id(dev LONG)
RETURNS LONG
AS
SELECT ($dev >> 8) & 4095;

-- The minor number (20 bits) of a userland dev_t: low 8 bits, then the
-- bits above the major number.
CREATE PERFETTO FUNCTION linux_device_minor_id(dev LONG)
RETURNS LONG
AS
SELECT ($dev & 255) | (($dev >> 20) << 8);
