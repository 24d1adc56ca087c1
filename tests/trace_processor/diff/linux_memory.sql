-- trace: linux_memory.textproto
INCLUDE PERFETTO MODULE linux.memory.high_watermark;
SELECT ts, dur, pid, process_name, anon_rss, file_rss, shmem_rss, rss, swap,
  anon_rss_and_swap, rss_and_swap
FROM memory_rss_and_swap_per_process ORDER BY pid, ts;
SELECT ts, dur, pid, process_name, rss_high_watermark
FROM memory_rss_high_watermark_per_process ORDER BY pid, ts;
