-- trace: stdlib_stacks.json
-- Stack ids from names up the stack: the two A>B>C share one, the
-- B of another category does not; the by_stack functions gather them.
INCLUDE PERFETTO MODULE slices.stack;
SELECT id, name, depth, parent_id, stack_id, parent_stack_id
FROM slice_with_stack_id ORDER BY id;
SELECT s.name, count(*) AS slices, count(DISTINCT s.stack_id) AS stacks
FROM slice_with_stack_id AS s GROUP BY s.name ORDER BY s.name;
SELECT id, name, depth FROM ancestor_slice_by_stack((
  SELECT stack_id FROM slice_with_stack_id WHERE id = 2)) ORDER BY ts, id;
SELECT id, name, depth FROM descendant_slice_by_stack((
  SELECT stack_id FROM slice_with_stack_id WHERE id = 1)) ORDER BY ts, id;
SELECT count(*) AS none FROM ancestor_slice_by_stack(12345);
