-- trace: machine_adopted.textproto
-- A trace of one remote machine only is that machine's (id 0).
SELECT id, raw_id, sysname, num_cpus FROM machine;
SELECT DISTINCT machine_id, cpu FROM cpu_counter_track;
SELECT id, cpu, machine_id FROM cpu;
