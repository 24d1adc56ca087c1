-- trace: linux_cpu.textproto
INCLUDE PERFETTO MODULE linux.cpu.idle_stats;
INCLUDE PERFETTO MODULE linux.cpu.frequency;
SELECT i.ts, i.dur, t.name, t.cpu, i.value, i.next_value, i.delta_value
FROM counter_leading_intervals!(counter) AS i
JOIN cpu_counter_track AS t ON t.id = i.track_id
ORDER BY t.name, t.cpu, i.ts;
SELECT ts, dur, freq, ucpu, cpu FROM cpu_frequency_counters ORDER BY cpu, ts;
SELECT ts, dur, idle, cpu FROM cpu_idle_counters ORDER BY cpu, ts;
SELECT * FROM cpu_idle_stats ORDER BY cpu, state;
