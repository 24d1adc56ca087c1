-- trace: sys_stats_irq.textproto
-- Per-IRQ and per-softirq counts of SysStats are counters of their own,
-- with the irq as a dimension, made in upstream's order of the fields.
SELECT c.id, c.ts, t.name, t.type, CAST(c.value AS INT) AS value,
  EXTRACT_ARG(t.dimension_arg_set_id, 'irq') AS irq
FROM counter c JOIN counter_track t ON c.track_id = t.id
ORDER BY c.id;
