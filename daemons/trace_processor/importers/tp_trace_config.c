/*
 * TracePacket.trace_config: the config the trace was recorded with, kept
 * as metadata as upstream keeps it (trace_config_pbtxt, in the text
 * format; unique_session_name; trace_uuid when no TraceUuid packet gave
 * one). Its trace_attributes, and those of a TraceAttributes packet, are
 * read in file order: each key is a metadata row "trace_attribute.KEY",
 * the last value given winning.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "pbdec.h"
#include "tp_int.h"
#include "traceconfig/textproto.h"
#include "protos/perfetto/config/trace_config.pb-c.h"

#define TRACE_CONFIG_UNIQUE_SESSION_NAME	22
#define TRACE_CONFIG_UUID_MSB			27
#define TRACE_CONFIG_UUID_LSB			28
#define TRACE_CONFIG_TRACE_ATTRIBUTES		48

/* One TraceAttributes.Attribute: a key with a long or a string value. */
static void
attribute_untrusted(struct tp *tp, const uint8_t *buf, size_t len)
{
	struct pb it;
	struct pb_field f, key = { 0 }, sval = { 0 };
	int64_t lval = 0;
	int has_l = 0;
	char *name, *v;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 1 && f.wire == PB_LEN)
			key = f;
		else if (f.id == 2 && f.wire == PB_VARINT) {
			lval = (int64_t)f.u;
			has_l = 1;
		} else if (f.id == 3 && f.wire == PB_LEN)
			sval = f;
	}
	/* No value: nothing, as upstream; a long before a string. */
	if (it.err || (!has_l && sval.id == 0) ||
	    (name = malloc(key.len + sizeof("trace_attribute."))) == NULL)
		return;
	memcpy(name, "trace_attribute.", sizeof("trace_attribute.") - 1);
	memcpy(name + sizeof("trace_attribute.") - 1, key.data, key.len);
	name[sizeof("trace_attribute.") - 1 + key.len] = '\0';
	if (has_l)
		tp_metadata_int(tp, name, lval);
	else if ((v = strndup((const char *)sval.data, sval.len)) != NULL) {
		tp_metadata_str(tp, name, v);
		free(v);
	}
	free(name);
}

void
tp_trace_attributes_untrusted(struct tp *tp, const uint8_t *buf, size_t len)
{
	struct pb it;
	struct pb_field f;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1)
		if (f.id == 1 && f.wire == PB_LEN)
			attribute_untrusted(tp, f.data, f.len);
}

/* What upstream takes from a TraceConfig as it is read, before sorting. */
void
tp_trace_config_tokenize(struct tp *tp, const uint8_t *buf, size_t len)
{
	struct pb it;
	struct pb_field f;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1)
		if (f.id == TRACE_CONFIG_TRACE_ATTRIBUTES && f.wire == PB_LEN)
			tp_trace_attributes_untrusted(tp, f.data, f.len);
}

void
tp_trace_config_untrusted(struct tp *tp, const uint8_t *buf, size_t len)
{
	struct pb it;
	struct pb_field f;
	char *s;

	uint64_t msb = 0, lsb = 0;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == TRACE_CONFIG_UUID_MSB && f.wire == PB_VARINT)
			msb = f.u;
		else if (f.id == TRACE_CONFIG_UUID_LSB && f.wire == PB_VARINT)
			lsb = f.u;
		else if (f.id == TRACE_CONFIG_UNIQUE_SESSION_NAME &&
		    f.wire == PB_LEN && (s = strndup((const char *)f.data,
		    f.len)) != NULL) {
			tp_metadata_str(tp, "unique_session_name", s);
			free(s);
		}
	}
	/* A TraceUuid packet, older than the config's, wins. */
	if (!tp->uuid_in_trace && (msb != 0 || lsb != 0)) {
		tp->uuid_in_trace = 1;
		tp_metadata_uuid(tp, msb, lsb, 0);
	}
	if ((s = textproto_print(&perfetto__protos__trace_config__descriptor,
	    buf, len)) != NULL) {
		tp_metadata_str(tp, "trace_config_pbtxt", s);
		free(s);
	}
}
