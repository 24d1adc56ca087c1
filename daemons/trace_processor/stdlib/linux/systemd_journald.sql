-- linux.systemd_journald: journal log entries, as upstream's module of
-- that name. faro does not record the journal: the view has upstream's
-- columns and no rows, so clients including it get no error.

CREATE PERFETTO VIEW linux_systemd_journald_logs(
  id LONG,
  ts TIMESTAMP,
  utid JOINID(thread.id),
  prio LONG,
  tag STRING,
  msg STRING,
  uid LONG,
  comm STRING,
  systemd_unit STRING,
  hostname STRING,
  transport STRING
)
AS
SELECT
  id, ts, utid, prio, tag, msg,
  NULL AS uid, NULL AS comm, NULL AS systemd_unit, NULL AS hostname,
  NULL AS transport
FROM android_logs
WHERE 0;
