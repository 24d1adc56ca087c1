/*
 * TracePacket.trace_config: the config the trace was recorded with, kept
 * as metadata as upstream keeps it (trace_config_pbtxt, in the text
 * format; unique_session_name).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "pbdec.h"
#include "tp_int.h"
#include "traceconfig/textproto.h"
#include "protos/perfetto/config/trace_config.pb-c.h"

#define TRACE_CONFIG_UNIQUE_SESSION_NAME	22

void
tp_trace_config_untrusted(struct tp *tp, const uint8_t *buf, size_t len)
{
	struct pb it;
	struct pb_field f;
	char *s;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1)
		if (f.id == TRACE_CONFIG_UNIQUE_SESSION_NAME &&
		    f.wire == PB_LEN && (s = strndup((const char *)f.data,
		    f.len)) != NULL) {
			tp_metadata_str(tp, "unique_session_name", s);
			free(s);
		}
	if ((s = textproto_print(&perfetto__protos__trace_config__descriptor,
	    buf, len)) != NULL) {
		tp_metadata_str(tp, "trace_config_pbtxt", s);
		free(s);
	}
}
