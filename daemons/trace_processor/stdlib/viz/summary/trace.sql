-- viz.summary.trace: facts about the whole trace the UI asks for.

-- 1 when the machine's recorded system name is Linux, else 0. Metadata
-- here is only ever the host machine's, whose id is 0.
CREATE PERFETTO FUNCTION _is_linux_machine(machine_id JOINID(machine.id))
RETURNS LONG AS
SELECT $machine_id IS 0 AND EXISTS(
  SELECT 1 FROM metadata AS m
  WHERE m.name = 'system_name' AND m.str_value = 'Linux'
);
