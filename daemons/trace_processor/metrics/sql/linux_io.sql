-- linux_io: block I/O per device (completed requests) and per process
-- (issued requests). rwbs says the direction: R read, W write.
DROP VIEW IF EXISTS linux_io_output;
DROP TABLE IF EXISTS _linux_io_rq;

CREATE TABLE _linux_io_rq AS
SELECT e.name AS name, e.utid AS utid,
  EXTRACT_ARG(e.arg_set_id, 'dev') AS dev,
  EXTRACT_ARG(e.arg_set_id, 'nr_sector') AS nr_sector,
  EXTRACT_ARG(e.arg_set_id, 'bytes') AS bytes,
  EXTRACT_ARG(e.arg_set_id, 'rwbs') AS rwbs
FROM ftrace_event e
WHERE e.name IN ('block_rq_issue', 'block_rq_complete');

CREATE VIEW linux_io_output AS
SELECT LinuxIoMetric(
  'device', (
    SELECT RepeatedField(LinuxIoMetric_Device(
      'dev', dev,
      'major', dev >> 20,
      'minor', dev & 1048575,
      'read_bytes', rb, 'write_bytes', wb,
      'read_ops', ro, 'write_ops', wo))
    FROM (
      SELECT dev,
        SUM(CASE WHEN instr(rwbs, 'R') THEN nr_sector * 512 ELSE 0 END) AS rb,
        SUM(CASE WHEN instr(rwbs, 'W') THEN nr_sector * 512 ELSE 0 END) AS wb,
        SUM(CASE WHEN instr(rwbs, 'R') THEN 1 ELSE 0 END) AS ro,
        SUM(CASE WHEN instr(rwbs, 'W') THEN 1 ELSE 0 END) AS wo
      FROM _linux_io_rq WHERE name = 'block_rq_complete'
      GROUP BY dev ORDER BY dev)),
  'process', (
    SELECT RepeatedField(LinuxIoMetric_Process(
      'pid', p.pid, 'name', p.name,
      'read_bytes', rb, 'write_bytes', wb,
      'read_ops', ro, 'write_ops', wo))
    FROM (SELECT * FROM (
      SELECT t.upid AS upid,
        SUM(CASE WHEN instr(rwbs, 'R')
          THEN IFNULL(NULLIF(bytes, 0), nr_sector * 512) ELSE 0 END) AS rb,
        SUM(CASE WHEN instr(rwbs, 'W')
          THEN IFNULL(NULLIF(bytes, 0), nr_sector * 512) ELSE 0 END) AS wb,
        SUM(CASE WHEN instr(rwbs, 'R') THEN 1 ELSE 0 END) AS ro,
        SUM(CASE WHEN instr(rwbs, 'W') THEN 1 ELSE 0 END) AS wo
      FROM _linux_io_rq r JOIN thread t USING (utid)
      WHERE r.name = 'block_rq_issue' AND t.upid IS NOT NULL
      GROUP BY t.upid) JOIN process USING (upid)
      ORDER BY rb + wb DESC, pid) p)
);
