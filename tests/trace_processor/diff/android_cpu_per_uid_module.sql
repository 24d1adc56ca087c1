-- trace: android_cpu_per_uid.textproto
INCLUDE PERFETTO MODULE android.cpu.cpu_per_uid;
SELECT t.name, u.uid, u.cluster, u.total_cpu_millis, u.package_name
FROM android_cpu_per_uid_track u JOIN track t ON t.id = u.id
ORDER BY t.name;
SELECT t.name, c.ts, c.dur, c.diff_ms, c.cpu_ratio
FROM android_cpu_per_uid_counter c JOIN track t ON t.id = c.track_id
ORDER BY t.name, c.ts;
