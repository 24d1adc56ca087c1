-- trace: args_real_display.textproto
SELECT key, real_value, display_value FROM args
WHERE value_type = 'real' ORDER BY id;
