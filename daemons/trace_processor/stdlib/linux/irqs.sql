-- linux.irqs: hard and soft interrupts as slices.

-- Hard IRQs (slices of 'cpu_irq' tracks); parent_id is the IRQ this one
-- preempted.
CREATE PERFETTO VIEW linux_hard_irqs(
  ts TIMESTAMP,
  dur DURATION,
  name STRING,
  id JOINID(slice.id),
  parent_id JOINID(slice.id)
)
AS
SELECT s.ts, s.dur, s.name, s.id, s.parent_id
FROM slices AS s
JOIN track AS t ON t.id = s.track_id
WHERE t.type = 'cpu_irq';

-- Soft IRQs (slices of 'cpu_softirq' tracks).
CREATE PERFETTO VIEW linux_soft_irqs(
  ts TIMESTAMP,
  dur DURATION,
  name STRING,
  id JOINID(slice.id)
)
AS
SELECT s.ts, s.dur, s.name, s.id
FROM slices AS s
JOIN track AS t ON t.id = s.track_id
WHERE t.type = 'cpu_softirq';

-- Hard and soft IRQs together; soft ones have no parent.
CREATE PERFETTO VIEW linux_irqs(
  ts TIMESTAMP,
  dur DURATION,
  name STRING,
  id JOINID(slice.id),
  parent_id JOINID(slice.id),
  is_soft_irq BOOL
)
AS
SELECT ts, dur, name, id, parent_id, 0 AS is_soft_irq
FROM linux_hard_irqs
UNION ALL
SELECT ts, dur, name, id, NULL AS parent_id, 1 AS is_soft_irq
FROM linux_soft_irqs;

-- IRQ numbers and names seen in the trace (InterruptInfo packets). The
-- importer does not record them yet: the view is empty.
CREATE PERFETTO VIEW linux_interrupt_mapping(
  id ID,
  irq_id LONG,
  name STRING,
  machine_id JOINID(machine.id)
)
AS
SELECT
  CAST(NULL AS INT) AS id,
  CAST(NULL AS INT) AS irq_id,
  CAST(NULL AS TEXT) AS name,
  CAST(NULL AS INT) AS machine_id
WHERE 0;
