-- trace: te_end_matching.textproto
SELECT ts, dur, category, name, depth FROM slice ORDER BY id;
