-- wattson.device_infos: Wattson device model, as upstream's module of that name.
--
-- faro has no Wattson power model: the module exists with upstream's
-- names and columns so that clients including it (the Perfetto UI's
-- plugins) get no rows rather than an error.

CREATE PERFETTO TABLE _wattson_device(
  name STRING
)
AS
SELECT
  NULL AS name
WHERE 0;
