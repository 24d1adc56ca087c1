
[
dur_by_threadprocessthreadtotal"22thread_slicesJ!
process
thread
durtotal
v
	max_depthn"G2thread_slicesJ#
name
depth	depth_maxn`r

n

name*
name*
	depth_max0@P
Ü
long_slices
slice_nameprocess_namedur"X"*B
dur(†çB

slice_nameP*L*R
slice_nameRprocess_nameRdurr

dur
ê
nullsdv"Ä~
|SELECT 'a' AS d, 1 AS v UNION ALL SELECT NULL, 2.5 UNION ALL SELECT 'c', NULL UNION ALL SELECT 3, 4 UNION ALL SELECT 1.5, -7Ü
thread_slicesÙ
ŒSELECT s.name AS name, s.dur AS dur, t.name AS thread, p.name AS process, s.depth AS depth FROM slice s JOIN thread_track tt ON s.track_id = tt.id JOIN thread t USING (utid) LEFT JOIN process p USING (upid)namedurthreadprocessdepthô
metaê
çSELECT 'trace_name' AS key, 'demo' AS value UNION ALL SELECT 'os', NULL UNION ALL SELECT 'slices', CAST((SELECT COUNT(*) FROM slice) AS TEXT)`
per_namename"82thread_slicesJ'
name
duravg_dur
name	cntB
avg_dur B
cnt.
	unbundledab"
SELECT 1 AS a, 2 AS b8