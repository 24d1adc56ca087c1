-- trace: te_seed_interning.textproto
SELECT name, value FROM stats
WHERE name IN ('tokenizer_skipped_packets', 'interned_data_tokenizer_errors',
  'packet_skipped_seq_needs_incremental_state_invalid',
  'interned_data_skipped_incremental_state_invalid')
ORDER BY name;
