-- trace: process_long_cmdline.textproto
SELECT pid, name, length(cmdline) AS len, substr(cmdline, 1, 12) AS head,
  substr(cmdline, -4) AS tail
FROM process WHERE pid IN (10, 11) ORDER BY pid;
