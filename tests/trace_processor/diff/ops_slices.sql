-- trace: te_seed_thread.textproto
SELECT s.name,
  (SELECT GROUP_CONCAT(a.name, '/') FROM ancestor_slice(s.id) a) AS ancestors,
  (SELECT COUNT(*) FROM descendant_slice(s.id)) AS descendants
FROM slice s ORDER BY s.id;
