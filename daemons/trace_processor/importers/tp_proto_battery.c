/*
 * BatteryCounters packets: each counter of a battery on its
 * "batt.[NAME.]COUNTER" track, with the charge derived from energy and
 * voltage and the power from current and voltage, as upstream derives
 * them (integer arithmetic included).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbdec.h"
#include "tp_int.h"
#include "tp_proto.h"

#define NAME_MAX_LEN	256

enum {
	BC_CHARGE_UAH = 1, BC_CAPACITY_PCT, BC_CURRENT_UA, BC_CURRENT_AVG_UA,
	BC_NAME, BC_ENERGY_UWH, BC_VOLTAGE_UV, BC_MAX
};

static int64_t
batt_track(struct tp *tp, const char *batt, const char *what)
{
	char name[NAME_MAX_LEN + 64];
	size_t n = tp->ntracks;
	int64_t track;
	int64_t set;

	if (batt != NULL)
		snprintf(name, sizeof(name), "batt.%s.%s", batt, what);
	else
		snprintf(name, sizeof(name), "batt.%s", what);
	if ((track = tp_track_intern(tp, TT_COUNTER, name, TP_NULL)) < 0)
		return -1;
	tp_track_kind(tp, track, "battery_counter");
	if (tp->ntracks != n) {
		set = tp_track_dim_set(tp, track);
		if (batt != NULL)
			tp_arg_str(tp, set, "battery_name",
			    "battery_name", batt, strlen(batt), NULL);
		else
			tp_arg_str_null(tp, set, "battery_name");
		tp_arg_str(tp, set, "counter_name", "counter_name",
		    what, strlen(what), NULL);
	}
	return track;
}

static void
batt_counter(struct tp *tp, int64_t ts, const char *batt, const char *what,
    double v)
{
	int64_t track = batt_track(tp, batt, what);

	if (track >= 0)
		tp_counter_insert(tp, ts, track, v, TP_NULL);
}

void
tp_proto_battery(struct tp *tp, int64_t ts, const uint8_t *buf, size_t len)
{
	struct pb it;
	struct pb_field f;
	int64_t v[BC_MAX], p;
	int has[BC_MAX];
	double capacity = 0;
	char batt[NAME_MAX_LEN];
	const char *bname = NULL;

	memset(has, 0, sizeof(has));
	memset(v, 0, sizeof(v));
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 0 || f.id >= BC_MAX)
			continue;
		if (f.id == BC_NAME && f.wire == PB_LEN) {
			snprintf(batt, sizeof(batt), "%.*s", (int)(f.len <
			    sizeof(batt) ? f.len : sizeof(batt) - 1), f.data);
			/* An empty name is no name. */
			bname = batt[0] != '\0' ? batt : NULL;
		} else if (f.id == BC_CAPACITY_PCT && f.wire == PB_FIXED32) {
			capacity = pb_float(&f);
			has[f.id] = 1;
		} else if (f.id != BC_NAME && f.id != BC_CAPACITY_PCT &&
		    f.wire == PB_VARINT) {
			v[f.id] = (int64_t)f.u;
			has[f.id] = 1;
		}
	}
	if (it.err) {
		tp_stat_inc(tp, ST_PROTO_DECODE_ERRORS, 1);
		return;
	}
	if (has[BC_CHARGE_UAH])
		batt_counter(tp, ts, bname, "charge_uah",
		    (double)v[BC_CHARGE_UAH]);
	else if (has[BC_ENERGY_UWH] && has[BC_VOLTAGE_UV]) {
		/* The track even when the voltage cannot divide, as
		 * upstream. */
		int64_t track = batt_track(tp, bname, "charge_uah");

		if (track >= 0 && v[BC_VOLTAGE_UV] > 0 &&
		    !__builtin_mul_overflow(v[BC_ENERGY_UWH], 1000000, &p))
			tp_counter_insert(tp, ts, track,
			    (double)(p / v[BC_VOLTAGE_UV]), TP_NULL);
	}
	if (has[BC_CAPACITY_PCT])
		batt_counter(tp, ts, bname, "capacity_pct", capacity);
	if (has[BC_CURRENT_UA])
		batt_counter(tp, ts, bname, "current_ua",
		    (double)v[BC_CURRENT_UA]);
	if (has[BC_CURRENT_AVG_UA])
		batt_counter(tp, ts, bname, "current.avg_ua",
		    (double)v[BC_CURRENT_AVG_UA]);
	if (has[BC_VOLTAGE_UV])
		batt_counter(tp, ts, bname, "voltage_uv",
		    (double)v[BC_VOLTAGE_UV]);
	/* Discharging current is negative; power is shown positive. */
	if (has[BC_CURRENT_UA] && has[BC_VOLTAGE_UV] &&
	    !__builtin_mul_overflow(v[BC_CURRENT_UA], v[BC_VOLTAGE_UV], &p))
		batt_counter(tp, ts, bname, "power_mw",
		    (double)llabs(p / 1000000000));
}
