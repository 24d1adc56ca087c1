-- trace: linux_cpu.textproto
INCLUDE PERFETTO MODULE linux.threads;
INCLUDE PERFETTO MODULE linux.irqs;
INCLUDE PERFETTO MODULE linux.block_io;
SELECT pid, tid, process_name, thread_name
FROM linux_kernel_threads ORDER BY pid, tid;
SELECT i.ts, i.dur, i.name, i.parent_id IS NULL AS no_parent, i.is_soft_irq,
  i.id IN (SELECT id FROM linux_hard_irqs) AS hard,
  i.id IN (SELECT id FROM linux_soft_irqs) AS soft
FROM linux_irqs AS i ORDER BY i.ts;
SELECT * FROM linux_interrupt_mapping;
SELECT * FROM linux_active_block_io_operations_by_device;
SELECT linux_device_major_id(2049) AS major, linux_device_minor_id(2049) AS minor,
  linux_device_major_id(0x1234567) AS major2,
  linux_device_minor_id(0x1234567) AS minor2;
