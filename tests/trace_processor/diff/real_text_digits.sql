-- trace: args_real_display.textproto
-- Reals as text, digit for digit as upstream's SQLite writes them: its
-- 18 decoded digits are not always the correctly rounded ones, which
-- decides the 17th (72 / 7.0 is 10.285714285714286, not ...287). 3000
-- values of several magnitudes; a dozen of them differed before.
WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 3000),
v(i, x) AS (
  SELECT i, ((i * 2654435761) % 1000003) / (7.0 + (i % 13)) *
    (CASE i % 5 WHEN 0 THEN 1e-6 WHEN 1 THEN 1.0 WHEN 2 THEN 1e6
     WHEN 3 THEN 1e-3 ELSE 123.456 END)
  FROM s
  UNION ALL SELECT 0, 72 / 7.0)
SELECT i, cast_string!(x) AS text FROM v ORDER BY i;
