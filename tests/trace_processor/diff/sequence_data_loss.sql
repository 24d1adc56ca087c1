-- trace: sequence_data_loss.textproto
-- Losses and state drops per sequence, summed over the sequences that
-- TraceStats.writer_stats maps to each buffer; a sequence the trace never
-- showed adds nothing. Every buffer named gets each row, 0 or not.
SELECT name, idx, severity, source, value FROM stats
WHERE name IN ('traced_buf_sequence_packet_loss',
  'traced_buf_incremental_sequences_dropped')
  OR (name GLOB 'traced_buf_data_loss_*' AND value > 0)
ORDER BY name, idx;
