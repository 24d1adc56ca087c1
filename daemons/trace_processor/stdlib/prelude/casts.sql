-- prelude.casts: cast macros every connection has without an INCLUDE, as
-- upstream's prelude provides them.

-- value as an INT.
CREATE PERFETTO MACRO cast_int(value Expr)
RETURNS Expr AS CAST($value AS INT);

-- value as a DOUBLE.
CREATE PERFETTO MACRO cast_double(value Expr)
RETURNS Expr AS CAST($value AS REAL);

-- value as a STRING.
CREATE PERFETTO MACRO cast_string(value Expr)
RETURNS Expr AS CAST($value AS TEXT);
