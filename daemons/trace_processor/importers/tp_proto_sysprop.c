/*
 * Android's system state: AndroidSystemProperty packets (the
 * debug.tracing.* properties Android sets for tracing, as upstream reads
 * them: counters, a device state slice, metadata) and InitialDisplayState.
 * The battery_stats.* and ScreenState counters are shared with atrace
 * counters of those names (tp_ftrace.c), which land on the same tracks.
 */
#include <stdlib.h>
#include <string.h>

#include "pbdec.h"
#include "tp_int.h"
#include "tp_proto.h"

#define PROP_PREFIX	"debug.tracing."

void
tp_battery_stats_counter(struct tp *tp, int64_t ts, const char *name,
    double v)
{
	struct tp_dim dim = TP_DIM_STR("counter_key", name);
	int64_t track = tp_track_intern_dimv(tp, TT_COUNTER, "battery_stats",
	    name, TP_NULL, &dim, 1, NULL);

	if (track >= 0)
		tp_counter_insert(tp, ts, track, v, TP_NULL);
}

void
tp_screen_state_counter(struct tp *tp, int64_t ts, double v)
{
	int64_t track = tp_track_intern_dimv(tp, TT_COUNTER, "screen_state",
	    "ScreenState", TP_NULL, NULL, 0, NULL);

	if (track >= 0)
		tp_counter_insert(tp, ts, track, v, TP_NULL);
}

void
tp_device_state_slice(struct tp *tp, int64_t ts, const char *state,
    size_t len)
{
	int64_t track = tp_track_intern_dimv(tp, TT_TRACK,
	    "android_device_state", "DeviceStateChanged", TP_NULL, NULL, 0,
	    NULL);
	char *name;

	if (track < 0 || (name = tp_strndup(state, len)) == NULL)
		return;
	(void)tp_slice_complete(tp, track, ts, 0, NULL, name, TP_NULL,
	    TP_NULL, TP_NULL);
	free(name);
}

/* A property's counter of its own, known by its full name. */
static void
sysprop_counter(struct tp *tp, int64_t ts, const char *prop,
    const char *name, double v)
{
	struct tp_dim dim = TP_DIM_STR("sysprop_name", prop);
	int64_t track = tp_track_intern_dimv(tp, TT_COUNTER, "sysprop_counter",
	    name, TP_NULL, &dim, 1, NULL);

	if (track >= 0)
		tp_counter_insert(tp, ts, track, v, TP_NULL);
}

/* The value as upstream reads it: strtol's, cut to 32 bits, the whole
 * string (to its first NUL) a number. */
static int
prop_int(const char *s, int32_t *v)
{
	char *end;
	long l;

	if (*s == '\0')
		return -1;
	l = strtol(s, &end, 10);
	if (*end != '\0')
		return -1;
	*v = (int32_t)l;
	return 0;
}

static void
property(struct tp *tp, int64_t ts, const char *name, const char *value)
{
	const char *key;
	int32_t v;

	if (strncmp(name, PROP_PREFIX, strlen(PROP_PREFIX)) != 0)
		return;
	key = name + strlen(PROP_PREFIX);
	if (strcmp(key, "device_state") == 0) {
		tp_device_state_slice(tp, ts, value, strlen(value));
		return;
	}
	if (strcmp(key, "wallpaper.package_name") == 0 ||
	    strcmp(key, "wallpaper.class_name") == 0) {
		tp_metadata_str(tp, name, value);
		return;
	}
	if (prop_int(value, &v) == -1)
		return;
	if (strcmp(key, "profile_boot_classpath") == 0)
		tp_metadata_int(tp, "android_profile_boot_classpath", v);
	else if (strcmp(key, "profile_system_server") == 0)
		tp_metadata_int(tp, "android_profile_system_server", v);
	else if (strcmp(key, "screen_state") == 0)
		tp_screen_state_counter(tp, ts, v);
	else if (strncmp(key, "battery_stats.", 14) == 0)
		tp_battery_stats_counter(tp, ts, key, v);
	else if (strcmp(key, "mcc") == 0 || strcmp(key, "mnc") == 0 ||
	    strcmp(key, "desktop_mode_visible_tasks") == 0)
		sysprop_counter(tp, ts, name, key, v);
	else if (strcmp(key, "battery_status") == 0)
		sysprop_counter(tp, ts, name, "BatteryStatus", v);
	else if (strcmp(key, "plug_type") == 0)
		sysprop_counter(tp, ts, name, "PlugType", v);
}

/* The display's state at the start: the ScreenState track's first value. */
void
tp_proto_initial_display(struct tp *tp, int64_t ts, const uint8_t *buf,
    size_t len)
{
	struct pb it;
	struct pb_field f;
	int32_t state = 0;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1)
		if (f.id == 1 && f.wire == PB_VARINT)
			state = (int32_t)f.u;
	if (it.err) {
		tp_stat_inc(tp, ST_PROTO_DECODE_ERRORS, 1);
		return;
	}
	tp_screen_state_counter(tp, ts, state);
}

void
tp_proto_sysprop(struct tp *tp, int64_t ts, const uint8_t *buf, size_t len)
{
	struct pb it, kv;
	struct pb_field f, g;
	char *name, *value;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		const uint8_t *n = NULL, *v = NULL;
		size_t nlen = 0, vlen = 0;

		if (f.id != 1 || f.wire != PB_LEN)
			continue;
		pb_init(&kv, f.data, f.len);
		while (pb_next_untrusted(&kv, &g) == 1) {
			if (g.wire != PB_LEN)
				continue;
			if (g.id == 1) {
				n = g.data;
				nlen = g.len;
			} else if (g.id == 2) {
				v = g.data;
				vlen = g.len;
			}
		}
		if (kv.err) {
			tp_stat_inc(tp, ST_PROTO_DECODE_ERRORS, 1);
			continue;
		}
		/* Copies: C strings ending at a NUL inside, as upstream's
		 * c_str() reads them. */
		name = tp_strndup(n != NULL ? (const char *)n : "", nlen);
		value = tp_strndup(v != NULL ? (const char *)v : "", vlen);
		if (name != NULL && value != NULL)
			property(tp, ts, name, value);
		free(name);
		free(value);
	}
	if (it.err)
		tp_stat_inc(tp, ST_PROTO_DECODE_ERRORS, 1);
}
