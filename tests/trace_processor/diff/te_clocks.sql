-- trace: te_clocks.textproto
SELECT ts, name FROM slice ORDER BY ts;
