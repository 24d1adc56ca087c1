/*
 * Trigger packets: the service writes one for each trigger that started,
 * stopped or cloned the session. As upstream, each is an instant on the
 * global "Trace Triggers" track (args producer_name, trusted_producer_uid),
 * and the metadata trace_trigger names the one that mattered: the first
 * clone-snapshot trigger, else the first trigger.
 */
#include <stdlib.h>
#include <string.h>

#include "tp_int.h"
#include "tp_proto.h"
#include "pbdec.h"

/* The global track of triggers, Chrome's too. */
int64_t
tp_proto_trigger_track(struct tp *tp)
{
	int64_t track = tp_track_intern(tp, TT_TRACK, "Trace Triggers",
	    TP_NULL);

	tp_track_kind(tp, track, "triggers");
	return track;
}

void
tp_proto_trigger(struct tp *tp, int64_t ts, const uint8_t *buf, size_t len,
    int clone)
{
	struct pb it;
	struct pb_field f;
	char *name = NULL, *producer = NULL;
	int64_t uid = 0, track, set;
	int has_uid = 0;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 1 && f.wire == PB_LEN)
			tp_setstr(&name, (const char *)f.data, f.len);
		else if (f.id == 2 && f.wire == PB_LEN)
			tp_setstr(&producer, (const char *)f.data, f.len);
		else if (f.id == 3 && f.wire == PB_VARINT) {
			uid = (int32_t)f.u;
			has_uid = 1;
		}
	}
	track = tp_proto_trigger_track(tp);
	/* As upstream, an empty producer name is none. */
	if (producer != NULL && producer[0] == '\0') {
		free(producer);
		producer = NULL;
	}
	set = producer != NULL || has_uid ? tp_arg_set_new(tp) : TP_NULL;
	if (producer != NULL)
		tp_arg_str(tp, set, "producer_name", "producer_name", producer,
		    strlen(producer), NULL);
	if (has_uid)
		tp_arg_int(tp, set, "trusted_producer_uid",
		    "trusted_producer_uid", uid, "int");
	if (track >= 0)
		(void)tp_slice_complete(tp, track, ts, 0, NULL,
		    name != NULL ? name : "", set, TP_NULL, TP_NULL);
	/* The first clone-snapshot trigger names the trace, else the first
	 * trigger; the clone's time is set once. */
	if (clone ? tp->trace_trigger < 2 : tp->trace_trigger == 0) {
		tp->trace_trigger = clone ? 2 : 1;
		tp_metadata_str(tp, "trace_trigger", name != NULL ? name : "");
		if (clone)
			tp_stat_inc(tp, ST_TRACED_CLONE_TRIGGER_TIMESTAMP_NS, ts);
	}
	free(name);
	free(producer);
}
