-- trace: json_events.json
-- Upstream prelude functions: the JSON of an arg set (nested objects,
-- arrays, escapes), LAST_NON_NULL and INTERNAL_LAYOUT windows, REGEXP
-- with flags, REGEXP_REPLACE_SIMPLE.
SELECT name, __intrinsic_arg_set_to_json(arg_set_id) AS args_json
FROM slice ORDER BY id;
WITH v(id, val) AS (VALUES (1, 1), (2, NULL), (3, 3), (4, NULL), (5, NULL))
SELECT id,
  LAST_NON_NULL(val) OVER (ORDER BY id) AS running,
  LAST_NON_NULL(val) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND
    1 FOLLOWING) AS ahead
FROM v ORDER BY id;
WITH s(ts, dur) AS (VALUES (1, 4), (2, 2), (3, -1), (4, 0), (5, 3), (9, 1))
SELECT ts, INTERNAL_LAYOUT(ts, dur) OVER (ORDER BY ts ROWS BETWEEN
  UNBOUNDED PRECEDING AND CURRENT ROW) AS depth
FROM s;
SELECT regexp('ab', 'xABy') AS sensitive, regexp('ab', 'xABy', 'i') AS i,
  regexp('ab', 'xABy', 'ic') AS ic,
  REGEXP_REPLACE_SIMPLE('a1b22c', '[0-9]+', '#') AS digits,
  REGEXP_REPLACE_SIMPLE('xyz', '', '.') AS interleaved;
SELECT cast_int!(7.9) AS i, typeof(cast_double!(2)) AS d,
  cast_string!(12) || 'x' AS s, trace_start() AS start, trace_end() AS "end",
  trace_dur() AS dur, slice_is_ancestor(2, 3) AS outer_over_inner,
  slice_is_ancestor(3, 2) AS inner_over_outer;
