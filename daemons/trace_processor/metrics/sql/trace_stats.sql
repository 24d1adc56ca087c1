-- trace_stats: every stat, summed over its indexes' duplicates, as
-- upstream reports it.
DROP VIEW IF EXISTS trace_stats_output;
CREATE VIEW trace_stats_output AS
SELECT TraceAnalysisStats(
  'stat', (
    SELECT RepeatedField(TraceAnalysisStats_Stat(
      'name', name,
      'idx', idx,
      'count', total_value,
      'source', CASE source
        WHEN 'trace' THEN 'SOURCE_TRACE'
        WHEN 'analysis' THEN 'SOURCE_ANALYSIS'
        ELSE 'SOURCE_UNKNOWN'
      END,
      'severity', CASE severity
        WHEN 'info' THEN 'SEVERITY_INFO'
        WHEN 'data_loss' THEN 'SEVERITY_DATA_LOSS'
        WHEN 'error' THEN 'SEVERITY_ERROR'
        ELSE 'SEVERITY_UNKNOWN'
      END))
    FROM (
      SELECT name, idx, source, severity, SUM(value) AS total_value
      FROM stats
      GROUP BY name, idx, source, severity
      ORDER BY name ASC
    )
  )
);
