/*
 * Chrome's own packets about the trace.
 *
 * ChromeMetadataPacket, read in file order as upstream reads it: each
 * packet is one Chrome instance, its values metadata rows "cr-a-NAME",
 * "cr-b-NAME", ... (a letter per packet, from 'a', after 'z' 'a' again),
 * rows that never replace one another; its background tracing metadata is
 * kept whole (base64) with the scenario's hash beside it.
 *
 * ChromeTrigger, in time order: an instant on the "Trace Triggers" track,
 * the end of the flow it names, and a cr-triggered_rule_name_hash row.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base64.h"
#include "tp_proto.h"

/* The last occurrence of a field, if of the wire type expected. */
static int
chrome_field(const uint8_t *buf, size_t len, uint32_t id, int wire,
    struct pb_field *f)
{
	return pb_last_untrusted(buf, len, id, f) && f->wire == wire;
}

/* A row "<prefix><name>": a string s, else v. */
static void
chrome_meta(struct tp *tp, const char *prefix, const char *name,
    const char *s, int64_t v)
{
	char key[64];

	snprintf(key, sizeof(key), "%s%s", prefix, name);
	tp_metadata_append(tp, key, s, v);
}

static void
chrome_meta_str(struct tp *tp, const char *prefix, const char *name,
    const struct pb_field *f)
{
	char *v;

	if ((v = tp_strndup((const char *)f->data, f->len)) != NULL) {
		chrome_meta(tp, prefix, name, v, 0);
		free(v);
	}
}

/* "{ name: N, group: G } " each, a line break before every odd one
 * after the first two, as upstream lays them out. */
static void
chrome_field_trials(struct tp *tp, const char *prefix, const uint8_t *buf,
    size_t len)
{
	struct pb it, fit;
	struct pb_field f, x;
	char one[64], *s = NULL, *n;
	size_t slen = 0, cap = 0, k;
	uint32_t name, group;
	int line = 0, any = 0;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id != 4 || f.wire != PB_LEN)
			continue;
		name = group = 0;
		pb_init(&fit, f.data, f.len);
		while (pb_next_untrusted(&fit, &x) == 1)
			if (x.wire == PB_VARINT && x.id == 1)
				name = (uint32_t)x.u;
			else if (x.wire == PB_VARINT && x.id == 2)
				group = (uint32_t)x.u;
		k = (size_t)snprintf(one, sizeof(one), "%s{ name: %" PRIu32
		    ", group: %" PRIu32 " } ", line == 2 ? "\n" : "", name,
		    group);
		line = line == 2 ? 1 : line + 1;
		/* Doubling: a packet may hold very many. */
		if (slen + k + 1 > cap) {
			cap = (slen + k + 1) * 2;
			if ((n = realloc(s, cap)) == NULL)
				break;
			s = n;
		}
		memcpy(s + slen, one, k + 1);
		slen += k;
		any = 1;
	}
	if (any && s != NULL)
		chrome_meta(tp, prefix, "field_trial_hashes", s, 0);
	free(s);
}

static void
chrome_background_tracing(struct tp *tp, const struct pb_field *f)
{
	struct pb_field h;
	char *b64;

	if ((b64 = malloc(4 * ((f->len + 2) / 3) + 1)) == NULL)
		return;
	base64_encode(f->data, f->len, b64);
	tp_metadata_append(tp, "cr-background_tracing_metadata", b64, 0);
	free(b64);
	if (chrome_field(f->data, f->len, 3, PB_FIXED32, &h))
		tp_metadata_append(tp, "cr-scenario_name_hash", NULL,
		    (int64_t)(uint32_t)h.u);
}

void
tp_proto_chrome_metadata(struct tp *tp, const uint8_t *buf, size_t len)
{
	static const struct { uint32_t id; const char *name; } strs[] = {
		{ 6, "product-version" },
		{ 8, "os-name" },
		{ 5, "package-name" },
	};
	struct pb_field f;
	char prefix[8];
	size_t i;

	snprintf(prefix, sizeof(prefix), "cr-%c-",
	    'a' + (int)(tp->chrome_instances++ % 26));
	/* In upstream's order, for the rows' ids. */
	if (chrome_field(buf, len, 2, PB_VARINT, &f))
		chrome_meta(tp, prefix, "playstore_version_code", NULL,
		    (int32_t)f.u);
	for (i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (chrome_field(buf, len, strs[i].id, PB_LEN, &f))
			chrome_meta_str(tp, prefix, strs[i].name, &f);
	if (chrome_field(buf, len, 7, PB_VARINT, &f))
		chrome_meta(tp, prefix, "channel", NULL,
		    (int64_t)(uint32_t)f.u);
	if (chrome_field(buf, len, 3, PB_LEN, &f))
		chrome_meta_str(tp, prefix, "enabled_categories", &f);
	chrome_field_trials(tp, prefix, buf, len);
	if (chrome_field(buf, len, 1, PB_LEN, &f))
		chrome_background_tracing(tp, &f);
}

void
tp_proto_chrome_trigger(struct tp *tp, int64_t ts, const uint8_t *buf,
    size_t len)
{
	struct pb it;
	struct pb_field f;
	char *name = NULL;
	uint32_t hash = 0;
	uint64_t flow = 0;
	int has_flow = 0;
	const char *study;
	int64_t track, set, id;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 1 && f.wire == PB_LEN)
			tp_setstr(&name, (const char *)f.data, f.len);
		else if (f.id == 2 && f.wire == PB_FIXED32)
			hash = (uint32_t)f.u;
		else if (f.id == 3 && f.wire == PB_FIXED64) {
			flow = f.u;
			has_flow = 1;
		}
	}
	track = tp_proto_trigger_track(tp);
	set = tp_arg_set_new(tp);
	tp_arg_int(tp, set, "chrome_trigger.name_hash",
	    "chrome_trigger.name_hash", hash, "uint");
	/* The study a translation table names for the hash. */
	if ((study = tp_translate_chrome_study(tp, hash)) != NULL)
		tp_arg_str(tp, set, "chrome_trigger.name",
		    "chrome_trigger.name", study, strlen(study), NULL);
	if (name != NULL)
		tp_arg_str(tp, set, "chrome_trigger.name",
		    "chrome_trigger.name", name, strlen(name), NULL);
	id = track >= 0 ? tp_slice_complete(tp, track, ts, 0, NULL,
	    name != NULL ? name : "chrome_trigger", set, TP_NULL, TP_NULL) :
	    -1;
	/* Only a flow still open ends here. */
	if (id >= 0 && has_flow && tp_flow_active(tp, flow))
		tp_flow_end(tp, flow, id, ts, 1);
	tp_metadata_append(tp, "cr-triggered_rule_name_hash", NULL, hash);
	free(name);
}
