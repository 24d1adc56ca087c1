-- trace: systrace_flags.txt
-- Text ftrace whose irq flags run into the timestamp ("....100.000200:")
-- parses as the spaced form does. (Upstream reads a fifth flag there,
-- taking the seconds' first digit: its ts would be 0.0002 s, so only
-- names and durations are compared.)
SELECT name, dur FROM slice ORDER BY name;
