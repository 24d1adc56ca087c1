-- trace: ftrace_kernel_counters.textproto
SELECT c.ts, t.name, t.type, c.value,
  EXTRACT_ARG(c.arg_set_id, 'len') AS len,
  EXTRACT_ARG(c.arg_set_id, 'protocol') AS protocol,
  EXTRACT_ARG(c.arg_set_id, 'thermal_zone_id') AS zone_id
FROM counter c JOIN counter_track t ON c.track_id = t.id
WHERE t.name NOT GLOB 'f2fs*' OR t.name GLOB '*.write_app_total'
  OR t.name GLOB '*.read_app_total' OR t.name GLOB '*.other_fs_discard'
ORDER BY c.ts, c.id;
SELECT name, value FROM stats
WHERE name = 'ftrace_thermal_exynos_acpm_unknown_tz_id';
