-- trace: ftrace_kernel_counters.textproto
-- An ACPM bulk report's row is sorted at its own time and its counters at
-- the sample time it carries, as upstream's tokenizer sorts it: the
-- counters and tracks it makes come after the events sampled before.
SELECT 'row' AS what, e.id, e.ts, e.name, e.arg_set_id AS v
FROM ftrace_event e WHERE e.name GLOB 'thermal_exynos*'
UNION ALL
SELECT 'counter', c.id, c.ts, t.name, c.value
FROM counter c JOIN track t ON c.track_id = t.id
WHERE t.type GLOB 'acpm*'
UNION ALL
SELECT 'track', t.id, NULL, t.name, t.dimension_arg_set_id
FROM track t WHERE t.type GLOB 'acpm*'
ORDER BY 1, 2;
