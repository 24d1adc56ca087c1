-- android.cpu.cluster_type: the kind of core (little, medium, big) of
-- each CPU, from its cluster and the number of clusters, as upstream's
-- module of that name. A CPU whose cluster layout is not one of the known
-- ones (one cluster, or more than four) gets no type.

CREATE PERFETTO TABLE _cores(
  cluster_id LONG,
  cluster_type STRING,
  cluster_count LONG
)
AS
SELECT column1 AS cluster_id, column2 AS cluster_type,
  column3 AS cluster_count
FROM (
  VALUES
    (0, 'little', 2), (1, 'big', 2),
    (0, 'little', 3), (1, 'medium', 3), (2, 'big', 3),
    (0, 'little', 4), (1, 'medium', 4), (2, 'medium', 4), (3, 'big', 4)
);

CREATE PERFETTO TABLE android_cpu_cluster_mapping(
  ucpu LONG,
  cpu LONG,
  cluster_type STRING
)
AS
SELECT c.ucpu, c.cpu, k.cluster_type
FROM cpu AS c
LEFT JOIN _cores AS k
  ON k.cluster_id = c.cluster_id
  AND k.cluster_count = (SELECT count(DISTINCT cluster_id) FROM cpu);
