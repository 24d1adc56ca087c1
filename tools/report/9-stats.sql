-- Data loss and import errors (empty means none)
SELECT name, idx, severity, value,
  CASE
    WHEN name = 'misplaced_end_event' THEN 'end events that did not match an open slice'
    WHEN name = 'traced_buf_trace_writer_packet_loss' THEN 'a producer dropped packets: its shared memory was full'
    WHEN name LIKE 'traced_buf_%' THEN 'lost in traced''s buffers (size or fill policy)'
    WHEN name LIKE 'ftrace_cpu_overrun%' THEN 'the kernel ring buffer overflowed'
    WHEN name = 'mismatched_sched_switch_tids' THEN 'sched_switch did not follow the previous one'
    ELSE ''
  END AS meaning
FROM stats
WHERE value > 0 AND severity IN ('data_loss', 'error')
ORDER BY severity, name;
