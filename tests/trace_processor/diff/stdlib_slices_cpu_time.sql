-- trace: linux_cpu.textproto
-- slices.cpu_time: each thread slice's time on a CPU and its cycles.
INCLUDE PERFETTO MODULE slices.cpu_time;
SELECT * FROM thread_slice_cpu_time ORDER BY id;
SELECT * FROM thread_slice_cpu_cycles ORDER BY id;
