-- trace: argset_dedup.textproto
-- Which set each slice has, and every arg row: sets are numbered by their
-- first arg's id, in the order they are stored.
SELECT 'slice' AS what, s.name AS name, s.arg_set_id AS id, NULL AS arg_set_id,
  NULL AS key, NULL AS value
FROM slice s
UNION ALL
SELECT 'arg', NULL, a.id, a.arg_set_id, a.key, a.display_value FROM args a
ORDER BY what DESC, id, name;
