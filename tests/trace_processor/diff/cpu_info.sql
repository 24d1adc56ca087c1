-- trace: cpu_info.textproto
-- The cpu table from a CpuInfo packet: processor, capacity (absent for
-- one cpu, so the clusters follow the highest frequencies).
SELECT id, ucpu, cpu, cluster_id, processor, machine_id, capacity
FROM cpu ORDER BY id;
