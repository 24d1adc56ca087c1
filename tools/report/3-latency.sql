-- Scheduling latency: time threads spent runnable before they ran
WITH lat AS (
  SELECT dur, ROW_NUMBER() OVER (ORDER BY dur) AS rn, COUNT(*) OVER () AS n
  FROM thread_state WHERE state IN ('R', 'R+') AND dur > 0
)
SELECT MAX(n) AS waits,
  printf('%.1f', MIN(CASE WHEN rn >= n * 0.50 THEN dur END) / 1e3) AS p50_us,
  printf('%.1f', MIN(CASE WHEN rn >= n * 0.90 THEN dur END) / 1e3) AS p90_us,
  printf('%.1f', MIN(CASE WHEN rn >= n * 0.99 THEN dur END) / 1e3) AS p99_us,
  printf('%.1f', MAX(dur) / 1e3) AS max_us
FROM lat;
