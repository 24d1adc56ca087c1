-- trace: process_tree_no_ppid.textproto
SELECT upid, pid, name, parent_upid FROM process ORDER BY upid;
