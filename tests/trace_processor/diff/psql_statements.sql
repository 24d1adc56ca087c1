-- trace: json_events.json
-- PerfettoSQL statements: functions, table functions, macros, tables,
-- views and indexes, as upstream's trace processor runs them.
CREATE PERFETTO FUNCTION add_ns(a LONG, b LONG) RETURNS LONG AS
SELECT $a + $b;
-- A recursive function: its body calls itself.
CREATE PERFETTO FUNCTION fact(n LONG) RETURNS LONG AS
SELECT IIF($n <= 1, 1, $n * fact($n - 1));
CREATE PERFETTO FUNCTION slices_named(n STRING)
RETURNS TABLE(id LONG, name STRING, ts TIMESTAMP) AS
SELECT id, name, ts FROM slice WHERE name = $n ORDER BY ts;
/* Comments may hold ';', quotes (don't) and $a; strings too. */
CREATE PERFETTO MACRO tab_sum(t TableOrSubquery, col ColumnName)
RETURNS Expr AS (SELECT sum($col) FROM $t);
CREATE PERFETTO MACRO plus_one(x Expr) RETURNS Expr AS $x + 1;
CREATE PERFETTO TABLE long_slices(id LONG, dur DURATION) AS
SELECT id, dur FROM slice WHERE dur > 0 ORDER BY dur DESC;
CREATE PERFETTO INDEX long_slices_dur ON long_slices(dur);
CREATE PERFETTO VIEW slice_names(name STRING, n LONG) AS
SELECT name, count(*) AS n FROM slice GROUP BY name;
SELECT add_ns(1, 2) AS three, fact(10) AS f10, 'not $a; a string' AS s,
  plus_one!(plus_one!(40)) AS forty_two,
  tab_sum!(long_slices, dur) = (SELECT sum(dur) FROM slice WHERE dur > 0)
    AS same_sum;
SELECT s.name, (SELECT count(*) FROM slices_named(s.name)) AS n
FROM (SELECT DISTINCT name FROM slice) s ORDER BY s.name;
SELECT * FROM slices_named('async');
CREATE OR REPLACE PERFETTO FUNCTION add_ns(a LONG, b LONG) RETURNS LONG AS
SELECT $a + $b + 1000;
CREATE OR REPLACE PERFETTO TABLE long_slices AS SELECT 7 AS id;
CREATE OR REPLACE PERFETTO MACRO plus_one(x Expr) RETURNS Expr AS $x + 2;
SELECT add_ns(1, 2) AS replaced, plus_one!(1) AS three,
  (SELECT id FROM long_slices) AS seven;
SELECT name, n FROM slice_names ORDER BY name;
INCLUDE PERFETTO MODULE time.conversion;
INCLUDE PERFETTO MODULE time.conversion;
INCLUDE PERFETTO MODULE time.*;
SELECT time_from_ms(3) AS ns, time_to_us(4500) AS us, time_to_s(2500000000) AS s;
