-- sched.states: readable names for the scheduling states the kernel (and
-- ETW) report as short codes.

-- The readable name of a state code; codes without one are kept as is.
CREATE PERFETTO FUNCTION sched_state_to_human_readable_string(
  short_name STRING
)
RETURNS STRING AS
SELECT CASE $short_name
  WHEN 'Running' THEN 'Running'
  WHEN 'R' THEN 'Runnable'
  WHEN 'R+' THEN 'Runnable (Preempted)'
  WHEN 'S' THEN 'Sleeping'
  WHEN 'D' THEN 'Uninterruptible Sleep'
  WHEN 'T' THEN 'Stopped'
  WHEN 't' THEN 'Traced'
  WHEN 'X' THEN 'Exit (Dead)'
  WHEN 'Z' THEN 'Exit (Zombie)'
  WHEN 'x' THEN 'Task Dead'
  WHEN 'I' THEN 'Idle'
  WHEN 'K' THEN 'Wakekill'
  WHEN 'W' THEN 'Waking'
  WHEN 'P' THEN 'Parked'
  WHEN 'N' THEN 'No Load'
  WHEN 'Stand By' THEN 'Stand By'
  WHEN 'Initialized' THEN 'Initialized'
  WHEN 'Waiting' THEN 'Waiting'
  WHEN 'Transition' THEN 'Transition'
  WHEN 'Deferred Ready' THEN 'Deferred Ready'
  ELSE $short_name
END;

-- The readable name of a state, with " (IO)" or " (non-IO)" appended when
-- io_wait says which kind of sleep it was.
CREATE PERFETTO FUNCTION sched_state_io_to_human_readable_string(
  sched_state STRING,
  io_wait BOOL
)
RETURNS STRING AS
SELECT ifnull(sched_state_to_human_readable_string($sched_state), '') ||
  CASE WHEN $io_wait = 1 THEN ' (IO)' WHEN $io_wait = 0 THEN ' (non-IO)'
  ELSE '' END;
