-- trace: stdlib_stacks.json
-- Following flows from slices: B -> C, E -> F, G -> D. Only slices
-- with a flow leaving them start a search; F's child G is not followed.
INCLUDE PERFETTO MODULE slices.flow;
SELECT f.slice_out, o.name AS out_name, f.slice_in, i.name AS in_name
FROM flow AS f JOIN slice AS o ON o.id = f.slice_out
JOIN slice AS i ON i.id = f.slice_in ORDER BY f.id;
SELECT * FROM _slice_following_flow!(slice) ORDER BY root_node_id, node_id;
SELECT * FROM _slice_following_flow!((SELECT id FROM slice WHERE name = 'E'));
SELECT count(*) AS none FROM _slice_following_flow!(
  (SELECT id FROM slice WHERE name = 'A'));
