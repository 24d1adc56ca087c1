-- trace: te_seed_interning.textproto
SELECT ts, dur, category, name FROM slice ORDER BY ts;
