-- std.traceinfo.trace: one row per trace loaded, from the metadata of its
-- scope, as upstream's module of that name.

CREATE PERFETTO TABLE _metadata_by_trace(
  trace_id LONG,
  unique_session_name STRING,
  trace_uuid STRING,
  trace_type STRING,
  trace_size_bytes LONG,
  trace_trigger STRING,
  machines STRING
)
AS
WITH
  traces AS (
    SELECT DISTINCT trace_id FROM metadata WHERE trace_id IS NOT NULL
  ),
  -- The machines seen in each trace, by recorded system name.
  trace_machines AS (
    SELECT
      trace_id,
      group_concat(
        coalesce(extract_metadata_for_machine(machine_id, 'system_name'),
          'Machine ' || machine_id),
        ', ') AS machines
    FROM (
      SELECT DISTINCT trace_id, machine_id FROM metadata
      WHERE trace_id IS NOT NULL AND machine_id IS NOT NULL
    )
    GROUP BY trace_id
  )
SELECT
  t.trace_id,
  extract_metadata_for_trace(t.trace_id, 'unique_session_name')
    AS unique_session_name,
  extract_metadata_for_trace(t.trace_id, 'trace_uuid') AS trace_uuid,
  extract_metadata_for_trace(t.trace_id, 'trace_type') AS trace_type,
  extract_metadata_for_trace(t.trace_id, 'trace_size_bytes')
    AS trace_size_bytes,
  extract_metadata_for_trace(t.trace_id, 'trace_trigger') AS trace_trigger,
  coalesce(m.machines, '') AS machines
FROM traces AS t
LEFT JOIN trace_machines AS m USING (trace_id);
