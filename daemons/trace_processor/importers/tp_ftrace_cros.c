/*
 * ChromeOS EC sensor hub samples (cros_ec_sensorhub_data): per sensor, a
 * counter of how late the kernel saw each sample (now less the sample's
 * time), with the sensor, the FIFO's delay and the sample's time as args,
 * as upstream.
 */
#include <inttypes.h>
#include <stdio.h>

#include "tp_int.h"

#define EV_CROS_EC_SENSORHUB_DATA	364

int
tp_ftrace_cros_event(struct tp *tp, int64_t ts, uint32_t cpu, int64_t pid,
    uint32_t evid, const struct tp_ftrace_ev *e)
{
	/* current_time 1, current_timestamp 2, ec_sensor_num 5,
	 * fifo_timestamp 6 */
	uint32_t sensor = (uint32_t)e->v[5];
	struct tp_dim dim = { "ec_sensor_num", NULL, sensor };
	char name[64];
	int64_t track, set;

	(void)cpu;
	(void)pid;
	if (evid != EV_CROS_EC_SENSORHUB_DATA)
		return 0;
	snprintf(name, sizeof(name), "cros_ec.cros_ec_sensorhub_data.%" PRIu32,
	    sensor);
	if ((track = tp_track_intern_dimv(tp, TT_COUNTER, NULL, name, TP_NULL, &dim,
	    1, NULL)) < 0)
		return 1;
	tp_track_kind(tp, track, "cros_ec_sensorhub_data");
	set = tp_arg_set_new(tp);
	tp_arg_int(tp, set, "ec_num", "ec_num", sensor, "int");
	tp_arg_int(tp, set, "ec_delta", "ec_delta",
	    (int64_t)((uint64_t)e->v[6] - (uint64_t)e->v[2]), "int");
	tp_arg_int(tp, set, "sample_ts", "sample_ts", e->v[2], "int");
	tp_counter_insert(tp, ts, track,
	    (double)(int64_t)((uint64_t)e->v[1] - (uint64_t)e->v[2]), set);
	return 1;
}
