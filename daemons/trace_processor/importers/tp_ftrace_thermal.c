/*
 * Thermal ftrace events as counters: a zone's temperature
 * (thermal_temperature), a cooling device's state (cdev_update), and
 * Exynos ACPM's per-zone reports; the bulk one carries its own sample
 * time, which upstream uses as the counters' timestamp.
 */
#include <stdio.h>

#include "tp_int.h"

#define EV_THERMAL_TEMPERATURE		341
#define EV_CDEV_UPDATE			342
#define EV_ACPM_BULK			506
#define EV_ACPM_HIGH_OVERHEAD		507

#define ZONE_MAX	128

static const char *const acpm_zones[] = {
	"BIG", "MID", "LITTLE", "GPU", "ISP", "TPU", "AUR",
};
#define NACPM_ZONES	(sizeof(acpm_zones) / sizeof(acpm_zones[0]))

/* A counter on the track "<prefix><zone><suffix>" of dimension dim. */
static void
zone_counter(struct tp *tp, int64_t ts, const char *kind, const char *prefix,
    const char *suffix, const char *dim, const char *zone, double v,
    int64_t set)
{
	char name[ZONE_MAX + 32];
	const char *dims[2] = { dim, zone };
	int64_t track;

	snprintf(name, sizeof(name), "%s%s%s", prefix, zone, suffix);
	track = tp_track_intern_dims(tp, TT_COUNTER, name, TP_NULL, dims, 1);
	if (track < 0)
		return;
	tp_track_kind(tp, track, kind);
	tp_counter_insert(tp, ts, track, v, set);
}

/* tz_id 1, current_temp 2, cdev_state 4. */
static void
acpm(struct tp *tp, int64_t ts, const struct tp_ftrace_ev *e)
{
	uint32_t tz = (uint32_t)e->v[1];
	int64_t set;

	if (tz >= NACPM_ZONES) {
		tp_stat_inc(tp, ST_FTRACE_THERMAL_EXYNOS_ACPM_UNKNOWN_TZ_ID, 1);
		return;
	}
	/* Each counter with its zone's number, as upstream. */
	set = tp_arg_set_new(tp);
	tp_arg_int(tp, set, "thermal_zone_id", "thermal_zone_id", tz, "int");
	zone_counter(tp, ts, "acpm_thermal_temperature", "", " Temperature",
	    "thermal_zone", acpm_zones[tz], (double)(uint32_t)e->v[2], set);
	set = tp_arg_set_new(tp);
	tp_arg_int(tp, set, "thermal_zone_id", "thermal_zone_id", tz, "int");
	zone_counter(tp, ts, "acpm_cooling_device_counter", "Tj-",
	    " Cooling Device", "thermal_zone", acpm_zones[tz],
	    (double)(uint32_t)e->v[4], set);
}

int
tp_ftrace_thermal_event(struct tp *tp, int64_t ts, uint32_t cpu, int64_t pid,
    uint32_t evid, const struct tp_ftrace_ev *e)
{
	char zone[ZONE_MAX];

	(void)cpu;
	(void)pid;
	switch (evid) {
	case EV_THERMAL_TEMPERATURE:
		/* temp 2, thermal_zone 4 */
		snprintf(zone, sizeof(zone), "%.*s", (int)(e->slen[4] <
		    sizeof(zone) ? e->slen[4] : sizeof(zone) - 1),
		    e->s[4] != NULL ? e->s[4] : "");
		zone_counter(tp, ts, "thermal_temperature", "", " Temperature",
		    "thermal_zone", zone, (double)(int32_t)e->v[2], TP_NULL);
		return 1;
	case EV_CDEV_UPDATE:
		/* target 1, type 2 */
		snprintf(zone, sizeof(zone), "%.*s", (int)(e->slen[2] <
		    sizeof(zone) ? e->slen[2] : sizeof(zone) - 1),
		    e->s[2] != NULL ? e->s[2] : "");
		zone_counter(tp, ts, "cooling_device_counter", "",
		    " Cooling Device", "linux_device", zone,
		    (double)(uint64_t)e->v[1], TP_NULL);
		return 1;
	case EV_ACPM_BULK:
		/* Placed at its sample time (tp_ftrace_thermal_tokenize). */
		acpm(tp, ts, e);
		return 1;
	case EV_ACPM_HIGH_OVERHEAD:
		acpm(tp, ts, e);
		return 1;
	}
	return 0;
}

int
tp_ftrace_thermal_tokenizes(uint32_t evid)
{
	return evid == EV_ACPM_BULK;
}

/*
 * An ACPM bulk report (rep, in FtraceEvent ev) is sorted twice, as
 * upstream's tokenizer sorts it: its ftrace_event row at its own time,
 * its counters at the time the firmware sampled (its field 11). One
 * without that time is dropped, counted.
 */
void
tp_ftrace_thermal_tokenize(struct tp *tp, struct tp_gen *g, uint32_t cpu,
    int64_t ts, const uint8_t *ev, size_t len, const uint8_t *rep,
    size_t replen)
{
	struct tp_ftrace_ev e;

	tp_ftrace_ev_decode(rep, replen, &e);
	if (!(e.has & 1u << 11)) {
		tp_stat_inc(tp, ST_FTRACE_BUNDLE_TOKENIZER_ERRORS, 1);
		return;
	}
	tp_ftrace_push(tp, g, cpu, ts, ts, FT_ROW, ev, len);
	tp_ftrace_push(tp, g, cpu, (int64_t)(uint64_t)e.v[11], ts, FT_EFFECTS,
	    ev, len);
}
