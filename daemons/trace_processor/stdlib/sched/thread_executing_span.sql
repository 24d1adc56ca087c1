-- sched.thread_executing_span: the wakeup graph of threads and the
-- critical path through it.
-- A thread executing span starts when a thread becomes runnable after
-- sleeping and lasts until it next goes to sleep and is woken again; it
-- takes the id of its first (runnable) thread_state. The wakeup graph
-- links each span to the span of the thread that woke it and to the
-- previous span of the same thread.

INCLUDE PERFETTO MODULE intervals.overlap;
INCLUDE PERFETTO MODULE intervals.intersect;

-- Is a thread woken from an interrupt (or waiting on I/O)? 1 or 0.
CREATE PERFETTO MACRO _ts_irq_flag(irq_context Expr, io_wait Expr)
RETURNS Expr AS
(CASE WHEN coalesce($irq_context, 0) != 0 THEN 1 ELSE coalesce($io_wait, 0) END);

-- Thread states ended and with a known waker: the thread was made
-- runnable by someone. is_irq: woken from interrupt context (or I/O wait);
-- without irq_context data (older kernels) only I/O wait counts.
CREATE PERFETTO TABLE _runnable_state AS
SELECT id, ts, dur, state, utid, waker_id, waker_utid,
  _ts_irq_flag!(irq_context, io_wait) AS is_irq
FROM thread_state
WHERE waker_id IS NOT NULL AND dur != -1;

-- Whether the trace comes from Fuchsia (one row, is_fuchsia 0 or 1).
CREATE PERFETTO TABLE _is_fuchsia AS
SELECT count(*) > 0 AS is_fuchsia
FROM metadata
WHERE name = 'trace_type' AND str_value = 'fuchsia';

-- Does state mark a thread becoming runnable? 'R' on Linux; Fuchsia
-- also marks the first wakeup of a thread 'W'.
CREATE PERFETTO MACRO _is_runnable_state(state Expr)
RETURNS Expr AS
($state = 'R' OR ($state = 'W' AND (SELECT is_fuchsia FROM _is_fuchsia)));

-- The first thread_state of each thread when it is a runnable one (with
-- the columns of _runnable_state).
CREATE PERFETTO TABLE _first_runnable_state AS
SELECT t.id, t.ts, t.dur, t.state, t.utid, t.waker_id, t.waker_utid,
  _ts_irq_flag!(t.irq_context, t.io_wait) AS is_irq
FROM thread_state AS t
JOIN (SELECT utid, min(id) AS id FROM thread_state GROUP BY utid) AS f
  USING (id)
WHERE t.dur != -1 AND _is_runnable_state!(t.state);

-- Ended sleeps, interruptible (S), uninterruptible (D) or idle (I).
CREATE PERFETTO TABLE _sleep_state AS
SELECT id, ts, dur, state, blocked_function, utid
FROM thread_state
WHERE dur != -1 AND state IN ('S', 'D', 'I');

-- When each thread's last ended thread_state ends.
CREATE PERFETTO TABLE _thread_end_ts AS
SELECT end_ts, utid
FROM (
  SELECT utid, ts + dur AS end_ts,
    row_number() OVER (PARTITION BY utid ORDER BY ts DESC) AS rn
  FROM thread_state
  WHERE dur != -1
)
WHERE rn = 1
ORDER BY utid;

-- For each thread, its first sleep that ends where a runnable state with
-- a waker begins.
CREATE PERFETTO TABLE _first_sleep_state AS
SELECT id, ts, dur, state, blocked_function, utid
FROM (
  SELECT s.*, row_number() OVER (PARTITION BY s.utid ORDER BY s.id) AS rn
  FROM _sleep_state AS s
  WHERE EXISTS (
    SELECT 1 FROM _runnable_state AS r
    WHERE r.utid = s.utid AND r.ts = s.ts + s.dur)
)
WHERE rn = 1
ORDER BY utid;

-- Every wakeup: a runnable state with a waker right after a sleep of the
-- same thread (state and blocked_function are the sleep's, prev_end_ts
-- is when the sleep began), plus the first runnable state of each thread
-- (no sleep before it known). thread_end_ts: when the thread's last
-- state ends.
CREATE PERFETTO TABLE _wakeup AS
WITH
  _wk_all AS (
    SELECT s.state, s.blocked_function, r.id, r.ts, r.utid, r.waker_id,
      r.waker_utid, s.ts AS prev_end_ts, r.is_irq
    FROM _sleep_state AS s
    JOIN _runnable_state AS r ON r.utid = s.utid AND r.ts = s.ts + s.dur
    UNION ALL
    SELECT NULL, NULL, f.id, f.ts, f.utid, f.waker_id, f.waker_utid, NULL,
      f.is_irq
    FROM _first_runnable_state AS f
  )
SELECT w.*, e.end_ts AS thread_end_ts
FROM _wk_all AS w
LEFT JOIN _thread_end_ts AS e USING (utid);

-- For each Running thread_state (waker_id: its id, as wakers are named
-- by the state they run in), the runnable state that led to it: the
-- latest runnable state of the thread up to it (id).
CREATE PERFETTO TABLE _wakeup_map AS
WITH
  _wm_states AS (
    SELECT id, utid, 0 AS runnable
    FROM thread_state
    WHERE state = 'Running' AND dur != -1
    UNION ALL
    SELECT id, utid, 1 FROM _first_runnable_state
    UNION ALL
    SELECT id, utid, coalesce(_is_runnable_state!(state), 0)
    FROM _runnable_state
  ),
  _wm_latest AS (
    SELECT id, runnable,
      max(iif(runnable, id, NULL)) OVER (PARTITION BY utid ORDER BY id)
        AS runnable_id
    FROM _wm_states
  )
SELECT runnable_id AS id, id AS waker_id
FROM _wm_latest
WHERE runnable = 0
ORDER BY waker_id;

-- The wakeup graph: one row per thread executing span. waker_id: the
-- span of the thread that woke it (NULL when woken from an interrupt);
-- prev_id: the thread's previous span; idle_state: the sleep before it
-- ('IRQ' for an interrupt wakeup); idle_reason: its blocked function;
-- idle_dur: how long it slept; dur: until the thread next sleeps (or its
-- last state ends).
CREATE PERFETTO TABLE _wakeup_graph AS
WITH
  _wg_events AS (
    SELECT
      w.utid,
      w.thread_end_ts,
      iif(w.is_irq, 'IRQ', w.state) AS idle_state,
      w.blocked_function AS idle_reason,
      w.id,
      iif(w.is_irq, NULL, m.id) AS waker_id,
      w.ts,
      w.prev_end_ts AS idle_ts
    FROM _wakeup AS w
    LEFT JOIN _wakeup_map AS m ON m.waker_id = w.waker_id
  )
SELECT
  utid,
  id,
  waker_id,
  ts,
  idle_state,
  idle_reason,
  ts - idle_ts AS idle_dur,
  lag(id) OVER (PARTITION BY utid ORDER BY ts) AS prev_id,
  ifnull(lead(idle_ts) OVER (PARTITION BY utid ORDER BY ts), thread_end_ts)
    - ts AS dur
FROM _wg_events
ORDER BY id;

-- The nodes of _node_table (a wakeup graph) covering the intervals of
-- _source_table (ts, dur, utid): on each interval's thread, from the last
-- node starting by the interval's start to the first starting at or
-- after its end (clamped to the thread's nodes). Columns: root_node_id,
-- capacity (id distance to the thread's previous node).
CREATE PERFETTO MACRO _intervals_to_roots(
  _source_table TableOrSubQuery,
  _node_table TableOrSubQuery
)
RETURNS TableOrSubQuery AS
(
  WITH
    _itr_nodes AS (SELECT * FROM $_node_table),
    _itr_src AS (SELECT * FROM $_source_table),
    _itr_bounds AS (
      SELECT utid, min(ts) AS first_ts, max(ts) AS last_ts
      FROM _itr_nodes
      GROUP BY utid
    ),
    _itr_ranges AS (
      SELECT
        s.utid,
        (SELECT max(n.id) FROM _itr_nodes AS n
         WHERE n.utid = s.utid AND n.ts <= max(s.ts, b.first_ts)) AS first_id,
        (SELECT min(n.id) FROM _itr_nodes AS n
         WHERE n.utid = s.utid AND n.ts >= min(s.ts + s.dur, b.last_ts))
          AS last_id
      FROM _itr_src AS s
      JOIN _itr_bounds AS b USING (utid)
    )
  SELECT DISTINCT
    n.id AS root_node_id,
    n.id - ifnull(n.prev_id, n.id) AS capacity
  FROM _itr_ranges AS r
  JOIN _itr_nodes AS n
    ON n.utid = r.utid AND n.id BETWEEN r.first_id AND r.last_id
);

-- The critical path of each root of _roots_table (root_node_id) through
-- the wakeup graph _node_table, by chain depth: a row per piece of time
-- and the span holding it up at that depth (see
-- __intrinsic_critical_path_walk). Columns: root_id, depth, ts, dur, id
-- (the blocking span), parent_id (the root).
CREATE PERFETTO MACRO _critical_path_with_depth_by_roots(
  _roots_table TableOrSubQuery,
  _node_table TableOrSubQuery
)
RETURNS TableOrSubQuery AS
(
  SELECT root_id, depth, ts, dur, blocker_id AS id, parent_id
  FROM __intrinsic_critical_path_walk(
    (SELECT __intrinsic_int_rows(n.id, n.utid, n.ts, n.dur, n.idle_dur,
       n.waker_id, n.prev_id)
     FROM $_node_table AS n),
    (SELECT __intrinsic_int_rows(r.root_node_id) FROM $_roots_table AS r)
  )
);

-- The critical path of each root, one blocking span per (root_id, ts):
-- the pieces of all depths flattened, the deepest winning. Columns:
-- root_id, id, ts, dur.
CREATE PERFETTO MACRO _critical_path_by_roots(
  _roots_table TableOrSubQuery,
  _node_table TableOrSubQuery
)
RETURNS TableOrSubQuery AS
(
  WITH
    _cpr_pieces AS (
      SELECT * FROM _critical_path_with_depth_by_roots!(
        $_roots_table, $_node_table)
    ),
    _cpr_extent AS (
      SELECT root_id, min(ts) AS root_ts, max(ts + dur) - min(ts) AS root_dur
      FROM _cpr_pieces
      GROUP BY root_id
    ),
    _cpr_input AS (
      SELECT p.root_id, e.root_ts, e.root_dur, p.parent_id, p.id, p.ts,
        p.dur
      FROM _cpr_pieces AS p
      JOIN _cpr_extent AS e USING (root_id)
    )
  SELECT f.root_id, f.id, f.ts, f.dur
  FROM _intervals_flatten!(_cpr_input) AS f
  WHERE f.dur > 0
  GROUP BY f.root_id, f.ts
);

-- The critical path over the intervals of _intervals_table (ts, dur,
-- utid), limited to them. Columns: root_utid, utid (of the blocking
-- span), root_id, id (the blocking span), ts, dur, interval_ts,
-- interval_dur.
CREATE PERFETTO MACRO _critical_path_by_intervals(
  _intervals_table TableOrSubQuery,
  _node_table TableOrSubQuery
)
RETURNS TableOrSubQuery AS
(
  WITH
    _cpi_nodes AS (SELECT * FROM $_node_table),
    _cpi_intervals AS (
      SELECT row_number() OVER (ORDER BY ts) AS id, ts, dur,
        utid AS root_utid
      FROM $_intervals_table
    ),
    _cpi_path AS (
      SELECT row_number() OVER (ORDER BY ts) AS id, root_id, id AS cr_id,
        ts, dur
      FROM _critical_path_by_roots!(
        _intervals_to_roots!($_intervals_table, $_node_table), _cpi_nodes)
    ),
    _cpi_span AS (
      SELECT rn.utid AS root_utid, bn.utid, p.root_id, p.cr_id, p.id, p.ts,
        p.dur
      FROM _cpi_path AS p
      JOIN _cpi_nodes AS rn ON rn.id = p.root_id
      JOIN _cpi_nodes AS bn ON bn.id = p.cr_id
    )
  SELECT DISTINCT
    s.root_utid,
    s.utid,
    s.root_id,
    s.cr_id AS id,
    ii.ts,
    ii.dur,
    i.ts AS interval_ts,
    i.dur AS interval_dur
  FROM _interval_intersect!((_cpi_span, _cpi_intervals), (root_utid)) AS ii
  JOIN _cpi_span AS s ON s.id = ii.id_0
  JOIN _cpi_intervals AS i ON i.id = ii.id_1
);

-- The critical path of thread root_utid over [ts, ts + dur): the spans
-- that held it up, each cut to the interval.
CREATE PERFETTO FUNCTION _thread_executing_span_critical_path(
  -- Thread to follow.
  root_utid JOINID(thread.id),
  -- Start of the interval.
  ts TIMESTAMP,
  -- Length of the interval.
  dur DURATION
)
RETURNS TABLE(
  -- The thread followed.
  root_utid JOINID(thread.id),
  -- The span of root_utid the time belongs to.
  root_id LONG,
  -- The span holding it up (its first thread_state).
  id LONG,
  -- Start of the piece.
  ts TIMESTAMP,
  -- Length of the piece.
  dur DURATION,
  -- Thread of the span holding it up.
  utid JOINID(thread.id)
) AS
SELECT root_utid, root_id, id, ts, dur, utid
FROM _critical_path_by_intervals!(
  (SELECT $root_utid AS utid, $ts AS ts, $dur AS dur),
  _wakeup_graph
);
