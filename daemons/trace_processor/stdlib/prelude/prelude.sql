-- prelude: what every query may use without an INCLUDE, as upstream's
-- prelude offers it. The engine includes this module when it starts.

-- Casts written as macros, so that they expand in place.
CREATE PERFETTO MACRO cast_int(value Expr) RETURNS Expr AS
CAST($value AS INT);

CREATE PERFETTO MACRO cast_double(value Expr) RETURNS Expr AS
CAST($value AS REAL);

-- A real as upstream's SQLite writes one (up to 17 digits, not 15).
CREATE PERFETTO MACRO cast_string(value Expr) RETURNS Expr AS
__intrinsic_cast_string($value);

-- The trace's first and last timestamps and the time between them.
CREATE PERFETTO FUNCTION trace_start() RETURNS TIMESTAMP AS
SELECT start_ts FROM trace_bounds;

CREATE PERFETTO FUNCTION trace_end() RETURNS TIMESTAMP AS
SELECT end_ts FROM trace_bounds;

CREATE PERFETTO FUNCTION trace_dur() RETURNS DURATION AS
SELECT trace_end() - trace_start();

-- Is slice ancestor_id above slice descendant_id on the same track: at a
-- lower depth, starting no later and ending no earlier (or unfinished)?
CREATE PERFETTO FUNCTION slice_is_ancestor(ancestor_id LONG,
  descendant_id LONG) RETURNS BOOL AS
SELECT a.track_id = d.track_id AND a.depth < d.depth AND a.ts <= d.ts
  AND (a.dur = -1 OR a.ts + a.dur >= d.ts + d.dur)
FROM slice AS a, slice AS d
WHERE a.id = $ancestor_id AND d.id = $descendant_id;
