/*
 * TrackEvent's typed fields that become args of its slice: a log message
 * (interned body and source location) and Chrome's list of active
 * processes, with upstream's keys.
 */
#include <stdio.h>
#include <string.h>

#include "pbdec.h"
#include "tp_proto.h"

#define IN_SOURCE_LOCATIONS	4
#define IN_LOG_MESSAGE_BODY	20

/*
 * A LogMessage of an event on a thread's track: its body, where it was
 * logged and its priority, if given. -1 when the event has no thread or
 * an iid is unknown (as upstream, the body stays when only the location
 * is unknown).
 */
int
tp_te_log_message_untrusted(struct tp *tp, const struct tp_gen *g,
    int64_t set, int on_thread, const uint8_t *buf, size_t len)
{
	static const char *const loc_keys[] = { NULL, NULL,
	    "track_event.log_message.file_name",
	    "track_event.log_message.function_name" };
	struct pb it;
	struct pb_field f;
	uint64_t body_iid = 0, loc_iid = 0, prio = 0;
	int has_loc = 0, has_prio = 0;
	const uint8_t *loc = NULL;
	const char *body;
	size_t bodylen, loclen = 0;
	const char *s[4] = { NULL, NULL, NULL, NULL };
	size_t sl[4] = { 0, 0, 0, 0 };
	int64_t line = 0;
	int i;

	if (!on_thread)
		return -1;
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.wire != PB_VARINT)
			continue;
		if (f.id == 1) {
			loc_iid = f.u;
			has_loc = 1;
		} else if (f.id == 2)
			body_iid = f.u;
		else if (f.id == 3) {
			prio = f.u;
			has_prio = 1;
		}
	}
	/* A lookup that fails is counted, as upstream counts it. */
	if (tp_gen_string(g, IN_LOG_MESSAGE_BODY, body_iid, 2, &body,
	    &bodylen) == -1) {
		tp_stat_inc(tp, ST_INTERNED_DATA_TOKENIZER_ERRORS, 1);
		return -1;
	}
	tp_arg_str(tp, set, "track_event.log_message.message",
	    "track_event.log_message.message", body, bodylen, NULL);
	if (has_loc && tp_gen_lookup(g, IN_SOURCE_LOCATIONS, loc_iid, &loc,
	    &loclen) == -1) {
		tp_stat_inc(tp, ST_INTERNED_DATA_TOKENIZER_ERRORS, 1);
		return -1;
	}
	if (has_loc) {
		pb_init(&it, loc, loclen);
		while (pb_next_untrusted(&it, &f) == 1) {
			if ((f.id == 2 || f.id == 3) && f.wire == PB_LEN) {
				s[f.id] = (const char *)f.data;
				sl[f.id] = f.len;
			} else if (f.id == 4 && f.wire == PB_VARINT)
				line = (int64_t)(uint32_t)f.u;
		}
		/* An absent name is NULL, as upstream interns it. */
		for (i = 2; i < 4; i++)
			if (s[i] != NULL)
				tp_arg_str(tp, set, loc_keys[i], loc_keys[i],
				    s[i], sl[i], NULL);
			else
				tp_arg_str_null(tp, set, loc_keys[i]);
		tp_arg_int(tp, set, "track_event.log_message.line_number",
		    "track_event.log_message.line_number", line, "int");
	}
	/* The same numbers as Android's log priorities; others unknown. */
	if (has_prio)
		tp_arg_int(tp, set, "track_event.priority",
		    "track_event.priority", prio <= 7 ? (int64_t)prio : 0,
		    "int");
	return 0;
}

/* The pids Chrome's service saw connected: processes of the trace, and
 * the event's args. */
void
tp_te_active_processes_untrusted(struct tp *tp, int64_t set,
    const uint8_t *buf, size_t len)
{
	struct pb it;
	struct pb_field f;
	char key[64];
	size_t n = 0;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id != 1 || f.wire != PB_VARINT)
			continue;
		(void)tp_process_get(tp, (int32_t)f.u);
		snprintf(key, sizeof(key), "chrome_active_processes.pid[%zu]",
		    n++);
		tp_arg_int(tp, set, "chrome_active_processes.pid", key,
		    (int32_t)f.u, "int");
	}
}
