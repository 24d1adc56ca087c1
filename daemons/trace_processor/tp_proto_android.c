/*
 * The Android screen state: one global counter track, "ScreenState"
 * (1 off, 2 on, as android.view.Display.STATE_*), fed by the display's
 * state when the trace began (InitialDisplayState) and by the atrace
 * counter of that name, which upstream lifts out of its process.
 */
#include "tp_proto.h"

void
tp_screen_state(struct tp *tp, int64_t ts, double v)
{
	int64_t track = tp_track_intern(tp, TT_COUNTER, "ScreenState",
	    TP_NULL);

	tp_track_kind(tp, track, "screen_state");
	if (track >= 0)
		tp_counter_insert(tp, ts, track, v, TP_NULL);
}

void
tp_proto_display_state(struct tp *tp, int64_t ts, const uint8_t *buf,
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
	tp_screen_state(tp, ts, state);
}
