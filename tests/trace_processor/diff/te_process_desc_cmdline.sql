-- trace: te_process_desc_cmdline.textproto
SELECT pid, name, cmdline FROM process WHERE pid >= 20 ORDER BY pid;
