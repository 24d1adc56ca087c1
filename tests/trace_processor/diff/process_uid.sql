-- trace: process_uid.textproto
-- A process's uid gives its Android app id and user id (uid % 100000 and
-- uid / 100000), as upstream derives them; no uid, no ids.
SELECT pid, uid, android_appid, android_user_id, cmdline FROM process
ORDER BY upid;
