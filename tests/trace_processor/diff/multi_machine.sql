-- trace: multi_machine.textproto
-- Packets of a remote machine (machine_id) make a machine of their own:
-- its metadata, cpu counter tracks, cpus and clocks are its own.
SELECT id, raw_id, sysname, release, arch, num_cpus FROM machine ORDER BY id;
SELECT name, str_value, int_value, machine_id, trace_id FROM metadata
WHERE name IN ('system_name', 'system_release', 'ftrace_latest_data_start_ns')
ORDER BY name, machine_id;
SELECT t.name, t.machine_id, t.cpu, c.ts, c.value
FROM cpu_counter_track t JOIN counter c ON c.track_id = t.id
WHERE t.name IN ('cpu.times.user_ns', 'cpu.times.idle_ns')
ORDER BY t.machine_id, t.cpu, t.name;
SELECT id, ucpu, cpu, machine_id FROM cpu ORDER BY id;
SELECT s.ts, s.name, t.machine_id FROM slice s JOIN track t ON s.track_id = t.id;
SELECT name, sum(value) AS value FROM stats
WHERE name = 'clock_sync_failure_unknown_source_clock' GROUP BY name;
SELECT t.name, t.machine_id, c.ts, c.value
FROM counter c JOIN counter_track t ON c.track_id = t.id
WHERE t.name GLOB 'power.*' ORDER BY t.machine_id;
