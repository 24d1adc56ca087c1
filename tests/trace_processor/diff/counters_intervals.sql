-- trace: counters_intervals.json
-- Runs of equal values keep their first two samples and their last, but
-- not a last one at ts 0 (the run of 5s) nor the run that ends the track
-- (the 8s); the final sample lasts to the end of the trace.
INCLUDE PERFETTO MODULE counters.intervals;
SELECT ts, dur, value, next_value, delta_value
FROM counter_leading_intervals!(counter) ORDER BY ts, dur, value;
