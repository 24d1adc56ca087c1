/*
 * TrackEvent: slices, instants, counters, flows and their args, on the
 * tracks of track descriptors or of the sequence's thread.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_proto.h"

/* Interned data fields (InternedData) and their string field. */
#define IN_CATEGORIES		1
#define IN_NAMES		2
#define IN_DEBUG_NAMES		3
#define IN_SOURCE_LOCATIONS	4
#define IN_DEBUG_STRINGS	29

#define TE_SLICE_BEGIN	1
#define TE_SLICE_END	2
#define TE_INSTANT	3
#define TE_COUNTER	4

#define MAX_IDS		64
#define KEY_MAX		512

struct te {
	int		 type;
	int		 has_type;
	uint64_t	 track_uuid;
	int		 has_track;
	const char	*name;
	size_t		 namelen;
	int		 has_name;
	size_t		 catlen;
	int		 has_cat;
	int		 has_counter;
	double		 counter;
	size_t		 n_extra_uuids;
	size_t		 n_extra_values;
	size_t		 n_extra_d_uuids;
	size_t		 n_extra_d_values;
	/* flow_ids, terminating_flow_ids: the fixed64 fields, when
	 * there, replace the old varint ones (as upstream reads them) */
	size_t		 nflows;
	int		 flows_new;
	size_t		 nterm;
	int		 term_new;
	/* legacy_event */
	int		 phase;
	int64_t		 legacy_dur;
	int64_t		 legacy_thread_dur;
	int64_t		 legacy_instr_delta;
	uint64_t	 legacy_name_iid;
	int		 has_legacy_name;
	int64_t		 pid_override, tid_override;
	int		 has_pid_override, has_tid_override;
	int		 instant_scope;	/* 1 global, 2 process, 3 thread */
	/* flow v2 (bind_id, flow_direction) and v1 (bind_to_enclosing) */
	uint64_t	 bind_id;
	int		 has_bind_id;
	int		 flow_direction;	/* 1 in, 2 out, 3 inout */
	int		 has_flow_direction;
	int		 bind_to_enclosing;
	/* legacy async ids: 0 none, else the field (6, 10 local, 11) */
	int		 id_field;
	uint64_t	 async_id;
	const uint8_t	*id_scope;
	size_t		 id_scopelen;
	int		 has_id_scope;
	/* From here on, valid up to the counts above: not cleared for each
	 * event (they are most of its size). */
	char		 cat[512];
	uint64_t	 extra_uuids[TP_MAX_EXTRA];
	double		 extra_values[TP_MAX_EXTRA];
	uint64_t	 extra_d_uuids[TP_MAX_EXTRA];
	double		 extra_d_values[TP_MAX_EXTRA];
	uint64_t	 flows[MAX_IDS];
	uint64_t	 term_flows[MAX_IDS];
};

/* Legacy times saturate rather than wrap, as upstream's; what ends up
 * negative is then dropped. */
static int64_t
sat_add(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b < 0 ? INT64_MIN : INT64_MAX;
	return r;
}

static int64_t
us_to_ns(int64_t us)
{
	int64_t r;

	if (__builtin_mul_overflow(us, 1000, &r))
		return us < 0 ? INT64_MIN : INT64_MAX;
	return r;
}

void
tp_proto_thread_descriptor(struct tp *tp, struct tp_seq *s,
    const uint8_t *buf, size_t len)
{
	struct pb it;
	struct pb_field f;
	const uint8_t *name = NULL;
	size_t namelen = 0;
	int64_t pid = 0, tid = 0, utid;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		switch (f.id) {
		case 1:
			pid = (int32_t)f.u;
			break;
		case 2:
			tid = (int64_t)f.u;
			break;
		case 5:
			if (f.wire == PB_LEN) {
				name = f.data;
				namelen = f.len;
			}
			break;
		case 6:
			s->ref_ts = us_to_ns((int64_t)f.u);
			break;
		case 7:
			s->ref_thread_ts = us_to_ns((int64_t)f.u);
			break;
		case 8:
			s->ref_instr = (int64_t)f.u;
			break;
		}
	}
	s->gen->has_thread = 1;
	s->gen->pid = pid;
	s->gen->tid = tid;
	utid = tp_thread_in_process(tp, tid, pid);
	if (name != NULL)
		tp_thread_set_name(tp, utid, (const char *)name, namelen,
		    TP_NAME_TRACK);
}

/*
 * The event's time, thread time (tv[0]) and thread instruction count
 * (tv[1]) from its legacy fields: deltas move the sequence's references,
 * one-off absolute values do not (as upstream). Legacy times are
 * MONOTONIC ones, taken into trace time when a snapshot allows it.
 */
int
tp_proto_te_times(struct tp *tp, struct tp_seq *s, const uint8_t *buf,
    size_t len, int has_ts, int64_t *ts, int64_t tv[2])
{
	struct pb it;
	struct pb_field f;
	int legacy_ts = 0, has_delta = 0;
	int64_t v, delta = 0, abs_ts = 0;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		switch (f.id) {
		case 1:		/* timestamp_delta_us */
			delta = (int64_t)f.u;
			has_delta = 1;
			break;
		case 16:	/* timestamp_absolute_us (0: none) */
			abs_ts = (int64_t)f.u;
			break;
		case 2:		/* thread_time_delta_us */
			tv[0] = s->ref_thread_ts = sat_add(s->ref_thread_ts,
			    us_to_ns((int64_t)f.u));
			break;
		case 17:	/* thread_time_absolute_us */
			tv[0] = us_to_ns((int64_t)f.u);
			break;
		case 8:		/* thread_instruction_count_delta */
			tv[1] = s->ref_instr = sat_add(s->ref_instr,
			    (int64_t)f.u);
			break;
		case 20:	/* thread_instruction_count_absolute */
			tv[1] = (int64_t)f.u;
			break;
		}
	}
	if (it.err) {
		tp_stat_inc(tp, ST_TRACK_EVENT_TOKENIZER_ERRORS, 1);
		return -1;
	}
	if (has_delta) {
		*ts = s->ref_ts = sat_add(s->ref_ts, us_to_ns(delta));
		legacy_ts = 1;
	} else if (abs_ts != 0) {
		*ts = us_to_ns(abs_ts);
		legacy_ts = 1;
	}
	if (!has_ts && !legacy_ts) {
		tp_stat_inc(tp, ST_TRACK_EVENT_TOKENIZER_ERRORS, 1);
		return -1;
	}
	/* Before the clock's start (or saturated): dropped, as upstream,
	 * before a conversion could bring it back into range. */
	if (legacy_ts && *ts < 0) {
		tp_proto_packet_log(tp, ST_TRACK_EVENT_INVALID_TIMESTAMP, 0,
		    TP_NULL);
		return -1;
	}
	if (legacy_ts && tp_clock_monotonic_to_trace(tp, *ts, &v) == 0)
		*ts = v;
	return 0;
}

void
tp_proto_streaming_profile(struct tp *tp, struct tp_seq *s,
    const uint8_t *buf, size_t len)
{
	struct pb it;
	struct pb_field f;
	struct pb_packed pk;
	uint64_t d;
	int64_t unused;

	/* The samples' times run on from the sequence's legacy time; the
	 * samples themselves are not imported. */
	if (s->ref_ts < 0) {
		tp_proto_packet_log(tp, ST_STREAMING_PROFILE_INVALID_TIMESTAMP,
		    0, TP_NULL);
		return;
	}
	/* Upstream converts that time (it places the samples by it): a
	 * failure is logged and counted the same here. */
	(void)tp_clock_monotonic_to_trace(tp, s->ref_ts, &unused);
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id != 2)
			continue;
		if (f.wire == PB_LEN) {
			pb_packed_init(&pk, &f);
			while (pb_packed_varint_untrusted(&pk, &d)) {
				s->ref_ts = sat_add(s->ref_ts,
				    us_to_ns((int64_t)d));
				if (s->ref_ts < 0)
					goto bad;
			}
		} else {
			s->ref_ts = sat_add(s->ref_ts, us_to_ns((int64_t)f.u));
			if (s->ref_ts < 0)
				goto bad;
		}
	}
	return;
bad:
	tp_proto_packet_log(tp, ST_STREAMING_PROFILE_INVALID_TIMESTAMP, 0,
	    TP_NULL);
}

static void
cat_append(struct te *e, const char *s, size_t len)
{
	if (e->catlen + len + 2 > sizeof(e->cat))
		return;
	if (e->catlen > 0)
		e->cat[e->catlen++] = ',';
	memcpy(e->cat + e->catlen, s, len);
	e->catlen += len;
	e->cat[e->catlen] = '\0';
	e->has_cat = 1;
}

static void
repeated_u64(const struct pb_field *f, uint64_t *arr, size_t *n, size_t max,
    int fixed)
{
	struct pb_packed pk;
	uint64_t v;

	if (f->wire == PB_LEN) {
		pb_packed_init(&pk, f);
		while (fixed ? pb_packed_fixed64_untrusted(&pk, &v) :
		    pb_packed_varint_untrusted(&pk, &v))
			if (*n < max)
				arr[(*n)++] = v;
	} else if (*n < max) {
		arr[(*n)++] = f->u;
	}
}

static void
legacy_event_untrusted(struct te *e, const uint8_t *buf, size_t len)
{
	struct pb it;
	struct pb_field f;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		switch (f.id) {
		case 1:
			e->legacy_name_iid = f.u;
			e->has_legacy_name = 1;
			break;
		case 2:
			e->phase = (int)f.u;
			break;
		case 3:
			e->legacy_dur = (int64_t)f.u * 1000;
			break;
		case 4:
			e->legacy_thread_dur = (int64_t)f.u * 1000;
			break;
		case 15:
			e->legacy_instr_delta = (int64_t)f.u;
			break;
		case 6:
		case 10:
		case 11:
			e->id_field = (int)f.id;
			e->async_id = f.u;
			break;
		case 7:
			if (f.wire == PB_LEN) {
				e->id_scope = f.data;
				e->id_scopelen = f.len;
				e->has_id_scope = 1;
			}
			break;
		case 8:
			e->bind_id = f.u;
			e->has_bind_id = 1;
			break;
		case 12:
			e->bind_to_enclosing = f.u != 0;
			break;
		case 13:
			e->flow_direction = (int)f.u;
			e->has_flow_direction = 1;
			break;
		case 14:
			e->instant_scope = (int)f.u;
			break;
		case 18:
			e->pid_override = (int32_t)f.u;
			e->has_pid_override = 1;
			break;
		case 19:
			e->tid_override = (int32_t)f.u;
			e->has_tid_override = 1;
			break;
		}
	}
}

static int
te_decode_untrusted(struct tp *tp, const struct tp_gen *g, const uint8_t *buf,
    size_t len, struct te *e)
{
	struct pb it;
	struct pb_field f;
	uint64_t tmp[TP_MAX_EXTRA];
	size_t i, n;
	const char *s;
	size_t slen;

	memset(e, 0, offsetof(struct te, cat));
	e->legacy_thread_dur = TP_NULL;
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		switch (f.id) {
		case 9:
			e->type = (int)f.u;
			e->has_type = 1;
			break;
		case 11:
			e->track_uuid = f.u;
			e->has_track = 1;
			break;
		case 23:
			if (f.wire == PB_LEN) {
				e->name = (const char *)f.data;
				e->namelen = f.len;
				e->has_name = 1;
			}
			break;
		case 10:
			if (tp_gen_string(g, IN_NAMES, f.u, 2, &s, &slen) == 0) {
				e->name = s;
				e->namelen = slen;
				e->has_name = 1;
			} else {
				tp_stat_inc(tp, ST_INTERNED_DATA_TOKENIZER_ERRORS,
				    1);
			}
			break;
		case 22:
			if (f.wire == PB_LEN)
				cat_append(e, (const char *)f.data, f.len);
			break;
		case 3:
			n = 0;
			repeated_u64(&f, tmp, &n, TP_MAX_EXTRA, 0);
			for (i = 0; i < n; i++) {
				if (tp_gen_string(g, IN_CATEGORIES, tmp[i], 2,
				    &s, &slen) == 0)
					cat_append(e, s, slen);
				else
					tp_stat_inc(tp,
					    ST_INTERNED_DATA_TOKENIZER_ERRORS, 1);
			}
			break;
		case 30:
			e->counter = (double)(int64_t)f.u;
			e->has_counter = 1;
			break;
		case 44:
			if (f.wire == PB_FIXED64) {
				e->counter = pb_double(&f);
				e->has_counter = 1;
			}
			break;
		case 31:
			repeated_u64(&f, e->extra_uuids, &e->n_extra_uuids,
			    TP_MAX_EXTRA, 0);
			break;
		case 12:
			n = 0;
			repeated_u64(&f, tmp, &n, TP_MAX_EXTRA, 0);
			for (i = 0; i < n && e->n_extra_values < TP_MAX_EXTRA;
			    i++)
				e->extra_values[e->n_extra_values++] =
				    (double)(int64_t)tmp[i];
			break;
		case 45:
			repeated_u64(&f, e->extra_d_uuids, &e->n_extra_d_uuids,
			    TP_MAX_EXTRA, 0);
			break;
		case 46:
			n = 0;
			repeated_u64(&f, tmp, &n, TP_MAX_EXTRA, 1);
			for (i = 0; i < n && e->n_extra_d_values < TP_MAX_EXTRA;
			    i++) {
				struct pb_field d = { .u = tmp[i] };

				e->extra_d_values[e->n_extra_d_values++] =
				    pb_double(&d);
			}
			break;
		case 36:
			if (!e->flows_new)
				repeated_u64(&f, e->flows, &e->nflows, MAX_IDS,
				    0);
			break;
		case 47:
			if (!e->flows_new)
				e->nflows = 0;
			e->flows_new = 1;
			repeated_u64(&f, e->flows, &e->nflows, MAX_IDS, 1);
			break;
		case 42:
			if (!e->term_new)
				repeated_u64(&f, e->term_flows, &e->nterm,
				    MAX_IDS, 0);
			break;
		case 48:
			if (!e->term_new)
				e->nterm = 0;
			e->term_new = 1;
			repeated_u64(&f, e->term_flows, &e->nterm, MAX_IDS, 1);
			break;
		case 6:
			if (f.wire == PB_LEN)
				legacy_event_untrusted(e, f.data, f.len);
			break;
		}
	}
	if (it.err) {
		tp_stat_inc(tp, ST_TRACK_EVENT_PARSER_ERRORS, 1);
		return -1;
	}
	if (!e->has_name && e->has_legacy_name) {
		if (tp_gen_string(g, IN_NAMES, e->legacy_name_iid, 2, &s,
		    &slen) == 0) {
			e->name = s;
			e->namelen = slen;
			e->has_name = 1;
		}
	}
	return 0;
}

/* Debug annotations ------------------------------------------------------ */

static void annotation_untrusted(struct tp *, const struct tp_gen *,
    int64_t set, char *flat, size_t flen, char *key, size_t klen,
    const uint8_t *, size_t, int depth);

static int
key_append(char *buf, size_t *len, const char *sep, const char *s,
    size_t slen)
{
	size_t seplen = strlen(sep);

	if (*len + seplen + slen + 1 > KEY_MAX)
		return -1;
	memcpy(buf + *len, sep, seplen);
	*len += seplen;
	memcpy(buf + *len, s, slen);
	*len += slen;
	buf[*len] = '\0';
	return 0;
}

static void
nested_value_untrusted(struct tp *tp, int64_t set, char *flat, size_t flen,
    char *key, size_t klen, const uint8_t *buf, size_t len, int depth)
{
	struct pb it;
	struct pb_field f;
	const uint8_t *keys[64];
	size_t keylens[64], nkeys = 0, nvals = 0, nitems = 0;
	int nested_type = 0;

	if (depth > 16)
		return;
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		switch (f.id) {
		case 1:
			nested_type = (int)f.u;
			break;
		case 2:
			if (f.wire == PB_LEN && nkeys < 64) {
				keys[nkeys] = f.data;
				keylens[nkeys++] = f.len;
			}
			break;
		case 5:
			tp_arg_int(tp, set, flat, key, (int64_t)f.u, "int");
			break;
		case 6:
			tp_arg_real(tp, set, flat, key, pb_double(&f));
			break;
		case 7:
			tp_arg_int(tp, set, flat, key, f.u != 0, "bool");
			break;
		case 8:
			tp_arg_str(tp, set, flat, key, (const char *)f.data,
			    f.len, "string");
			break;
		}
	}
	if (nested_type == 0)
		return;
	/* Second pass: dict values pair with dict keys by position. */
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		size_t fl = flen, kl = klen;
		char idx[32];

		if (f.wire != PB_LEN)
			continue;
		if (f.id == 3 && nested_type == 1 && nvals < nkeys) {
			if (key_append(flat, &fl, ".", (const char *)keys[nvals],
			    keylens[nvals]) == 0 && key_append(key, &kl, ".",
			    (const char *)keys[nvals], keylens[nvals]) == 0)
				nested_value_untrusted(tp, set, flat, fl, key,
				    kl, f.data, f.len, depth + 1);
			nvals++;
		} else if (f.id == 4 && nested_type == 2) {
			snprintf(idx, sizeof(idx), "[%zu]", nitems++);
			if (key_append(key, &kl, "", idx, strlen(idx)) == 0)
				nested_value_untrusted(tp, set, flat, fl, key,
				    kl, f.data, f.len, depth + 1);
		}
		flat[flen] = '\0';
		key[klen] = '\0';
	}
}

static void
annotation_untrusted(struct tp *tp, const struct tp_gen *g, int64_t set,
    char *flat, size_t flen, char *key, size_t klen, const uint8_t *buf,
    size_t len, int depth)
{
	struct pb it;
	struct pb_field f;
	const char *s;
	size_t slen, fl, kl, nitems = 0;
	int named = depth > 0;

	if (depth > 16)
		return;
	/* First the name, which may come after the value. */
	pb_init(&it, buf, len);
	while (!named && pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 10 && f.wire == PB_LEN) {
			named = key_append(flat, &flen, ".",
			    (const char *)f.data, f.len) == 0 &&
			    key_append(key, &klen, ".", (const char *)f.data,
			    f.len) == 0;
		} else if (f.id == 1 && f.wire == PB_VARINT) {
			if (tp_gen_string(g, IN_DEBUG_NAMES, f.u, 2, &s,
			    &slen) == 0)
				named = key_append(flat, &flen, ".", s,
				    slen) == 0 && key_append(key, &klen, ".",
				    s, slen) == 0;
			else
				tp_stat_inc(tp,
				    ST_INTERNED_DATA_TOKENIZER_ERRORS, 1);
		}
	}
	if (!named)
		return;
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		switch (f.id) {
		case 2:
			tp_arg_int(tp, set, flat, key, f.u != 0, "bool");
			break;
		case 3:
			tp_arg_int(tp, set, flat, key, (int64_t)f.u, "uint");
			break;
		case 4:
			tp_arg_int(tp, set, flat, key, (int64_t)f.u, "int");
			break;
		case 5:
			tp_arg_real(tp, set, flat, key, pb_double(&f));
			break;
		case 7:
			tp_arg_int(tp, set, flat, key, (int64_t)f.u,
			    "pointer");
			break;
		case 6:
			if (f.wire == PB_LEN)
				tp_arg_str(tp, set, flat, key,
				    (const char *)f.data, f.len, "string");
			break;
		case 9:
			/* legacy_json_value: its values, flattened. */
			if (f.wire == PB_LEN)
				(void)tp_json_args(tp, set, flat, key,
				    (const char *)f.data, f.len);
			break;
		case 17:
			if (tp_gen_string(g, IN_DEBUG_STRINGS, f.u, 2, &s,
			    &slen) == 0)
				tp_arg_str(tp, set, flat, key, s, slen,
				    "string");
			else
				tp_stat_inc(tp,
				    ST_INTERNED_DATA_TOKENIZER_ERRORS, 1);
			break;
		case 8:
			if (f.wire == PB_LEN)
				nested_value_untrusted(tp, set, flat, flen,
				    key, klen, f.data, f.len, depth + 1);
			break;
		case 11:	/* dict entry: a named annotation */
			if (f.wire == PB_LEN) {
				struct pb sub;
				struct pb_field sf;
				int ok = 0;

				fl = flen;
				kl = klen;
				pb_init(&sub, f.data, f.len);
				while (pb_next_untrusted(&sub, &sf) == 1 && !ok)
					if (sf.id == 10 && sf.wire == PB_LEN)
						ok = key_append(flat, &fl, ".",
						    (const char *)sf.data,
						    sf.len) == 0 &&
						    key_append(key, &kl, ".",
						    (const char *)sf.data,
						    sf.len) == 0;
				if (ok)
					annotation_untrusted(tp, g, set, flat,
					    fl, key, kl, f.data, f.len,
					    depth + 1);
				flat[flen] = '\0';
				key[klen] = '\0';
			}
			break;
		case 12:	/* array value */
			if (f.wire == PB_LEN) {
				char idx[32];

				kl = klen;
				snprintf(idx, sizeof(idx), "[%zu]", nitems++);
				if (key_append(key, &kl, "", idx,
				    strlen(idx)) == 0)
					annotation_untrusted(tp, g, set, flat,
					    flen, key, kl, f.data, f.len,
					    depth + 1);
				key[klen] = '\0';
			}
			break;
		}
	}
}

/* A SourceLocation's fields as args below prefix ("source" for an
 * interned one, "source_location" for one inline, as upstream). */
static void
source_location_args(struct tp *tp, int64_t set, const char *prefix,
    const uint8_t *buf, size_t len)
{
	static const char *const names[] = { NULL, NULL, "file_name",
	    "function_name", "line_number" };
	struct pb it;
	struct pb_field f;
	char k[64];

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id < 2 || f.id > 4)
			continue;
		snprintf(k, sizeof(k), "%s.%s", prefix, names[f.id]);
		if (f.id < 4 && f.wire == PB_LEN)
			tp_arg_str(tp, set, k, k, (const char *)f.data, f.len,
			    NULL);
		else if (f.id == 4 && f.wire == PB_VARINT)
			tp_arg_int(tp, set, k, k, (int64_t)f.u, "uint");
	}
}

/* Which of te_args' passes reads field f first: 0 to 3, or -1 (no arg).
 * An interned source location (0) is read again in pass 2. */
static int
te_arg_pass(const struct pb_field *f)
{
	switch (f->id) {
	case 34:
		return f->wire == PB_VARINT ? 0 : -1;
	case 21:
		return f->wire == PB_LEN ? 1 : -1;
	case 33:
	case 49:
		return f->wire == PB_LEN ? 2 : -1;
	case 4:
		return f->wire == PB_LEN ? 3 : -1;
	}
	return -1;
}

/* The args of field f of an event, read in pass `pass`. */
static void
te_arg_field(struct tp *tp, const struct tp_gen *g, int64_t *set,
    int on_thread, const struct pb_field *f, int pass)
{
	char flat[KEY_MAX], key[KEY_MAX];
	const uint8_t *msg;
	size_t mlen;

	if (*set == TP_NULL)
		*set = tp_arg_set_new(tp);
	if (f->id == 4) {
		strcpy(flat, "debug");
		strcpy(key, "debug");
		annotation_untrusted(tp, g, *set, flat, 5, key, 5, f->data,
		    f->len, 0);
	} else if (f->id == 21) {
		if (tp_te_log_message_untrusted(tp, g, *set, on_thread,
		    f->data, f->len) == -1)
			tp_stat_inc(tp, ST_TRACK_EVENT_PARSER_ERRORS, 1);
	} else if (f->id == 49) {
		tp_te_active_processes_untrusted(tp, *set, f->data, f->len);
	} else if (f->id == 33) {
		source_location_args(tp, *set, "source_location", f->data,
		    f->len);
	} else if (pass == 2) {
		tp_arg_int(tp, *set, "source_location_iid",
		    "source_location_iid", (int64_t)f->u, "uint");
	} else if (tp_gen_lookup(g, IN_SOURCE_LOCATIONS, f->u, &msg,
	    &mlen) == 0) {
		source_location_args(tp, *set, "source", msg, mlen);
	} else {
		/* The failed lookup, and the arg it fails, as upstream. */
		tp_stat_inc(tp, ST_INTERNED_DATA_TOKENIZER_ERRORS, 1);
		tp_stat_inc(tp, ST_TRACK_EVENT_PARSER_ERRORS, 1);
	}
}

/*
 * Adds the event's args to set (allocated on first arg if *set is NULL),
 * in upstream's order: the interned source location, the log message,
 * the fields upstream copies by reflection (source_location_iid, an
 * inline source_location, chrome_active_processes) in the order they
 * come, then its debug annotations. on_thread: the event is on a thread's
 * track. The fields are read once and kept (an event has few); one with
 * more reads its fields again in each pass.
 */
static void
te_args(struct tp *tp, const struct tp_gen *g, int64_t *set, int on_thread,
    const uint8_t *buf, size_t len)
{
	struct pb it;
	struct pb_field f, kept[32];
	int passes[32];
	size_t i, n = 0;
	int pass, p;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if ((p = te_arg_pass(&f)) < 0)
			continue;
		if (n == sizeof(kept) / sizeof(kept[0]))
			goto many;
		passes[n] = p;
		kept[n++] = f;
	}
	for (pass = 0; pass < 4; pass++) {
		for (i = 0; i < n; i++)
			if (passes[i] == pass || (pass == 2 && passes[i] == 0))
				te_arg_field(tp, g, set, on_thread, &kept[i],
				    pass);
	}
	return;
many:
	for (pass = 0; pass < 4; pass++) {
		pb_init(&it, buf, len);
		while (pb_next_untrusted(&it, &f) == 1)
			if ((p = te_arg_pass(&f)) == pass || (pass == 2 &&
			    p == 0))
				te_arg_field(tp, g, set, on_thread, &f, pass);
	}
}

static int
te_has_args(const uint8_t *buf, size_t len)
{
	struct pb it;
	struct pb_field f;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1)
		if (f.id == 4 || f.id == 21 || f.id == 33 || f.id == 34 ||
		    f.id == 49)
			return 1;
	return 0;
}

/*
 * The sequence's thread when the event goes to a track of its process
 * (and the thread is in it) or to a global track, -1 otherwise: upstream
 * keeps it as the arg legacy_event.passthrough_utid, for the JSON export
 * to put the event back on its thread.
 */
static int64_t
te_passthrough_utid(struct tp *tp, const struct tp_gen *g,
    const struct te *e, int64_t track)
{
	const struct tp_track *t;
	int64_t utid;

	/* Only a descriptor's track (uuid not 0) has one. */
	if (track < 0 || g == NULL || !g->has_thread ||
	    (e->has_track ? e->track_uuid : g->has_track_uuid ?
	    g->track_uuid : 0) == 0)
		return -1;
	t = &tp->tracks[track];
	if (t->utid != TP_NULL || t->cpu != TP_NULL)
		return -1;
	utid = tp_thread_in_process(tp, g->tid, g->pid);
	if (utid < 0 || (t->upid != TP_NULL &&
	    tp->threads[utid].upid != t->upid))
		return -1;
	return utid;
}

/* The passthrough utid, after the event's own args, as upstream. */
static void
te_passthrough_arg(struct tp *tp, int64_t *set, int64_t utid)
{
	if (utid < 0)
		return;
	if (*set == TP_NULL)
		*set = tp_arg_set_new(tp);
	tp_arg_int(tp, *set, "legacy_event.passthrough_utid",
	    "legacy_event.passthrough_utid", utid, "uint");
}

/* Legacy async begins (S) and steps (T, p) keep their phase, for the JSON
 * export, as upstream. */
static void
te_phase_arg(struct tp *tp, const struct te *e, int64_t set)
{
	char ph[2] = { (char)e->phase, '\0' };

	if (set != TP_NULL && e->phase != 0 &&
	    strchr("STp", e->phase) != NULL)
		tp_arg_str(tp, set, "legacy_event.phase", "legacy_event.phase",
		    ph, 1, NULL);
}

/*
 * Counter value into a counter track, honouring multiplier/increments:
 * an incremental counter sums per sequence and from the sequence's last
 * clearing of its state, as upstream. set is the value's args (TP_NULL:
 * none). Returns the value stored.
 */
static double
counter_push(struct tp *tp, struct tp_gen *g, uint64_t uuid, int64_t track,
    int64_t ts, double v, int64_t set)
{
	struct tp_track *t = &tp->tracks[track];
	uint64_t *sum, bits;
	double acc = 0;

	if (t->type < TT_COUNTER) {
		tp_stat_inc(tp, ST_TRACK_EVENT_PARSER_ERRORS, 1);
		return 0;
	}
	v *= (double)t->multiplier;
	if (t->incremental && g != NULL) {
		if ((sum = tp_hash_get(&g->counters, uuid)) != NULL)
			memcpy(&acc, sum, sizeof(acc));
		v += acc;
		memcpy(&bits, &v, sizeof(bits));
		(void)tp_hash_put(&g->counters, uuid, bits);
	}
	tp_counter_insert(tp, ts, track, v, set);
	return v;
}

/* A legacy per-thread value (thread time, instruction count) of an
 * event on a thread's track, kept as a counter of that thread. */
static void
thread_value_counter(struct tp *tp, int64_t utid, const char *name,
    const char *kind, int64_t ts, int64_t v)
{
	int64_t ct;

	if (v == TP_NULL || utid < 0)	/* TP_NULL is < 0 too */
		return;
	ct = tp_track_intern(tp, TT_THREAD_COUNTER, name, utid);
	tp_track_kind(tp, ct, kind);
	if (ct >= 0)
		tp_counter_insert(tp, ts, ct, (double)v, TP_NULL);
}

/* An event's legacy thread time (tv[0]) and instruction count (tv[1]),
 * TP_NULL when not given, as counters of its thread. */
static void
thread_values(struct tp *tp, int64_t utid, int64_t ts, const int64_t tv[2])
{
	thread_value_counter(tp, utid, "thread_time", "thread_time", ts,
	    tv[0]);
	thread_value_counter(tp, utid, "thread_instruction_count",
	    "thread_instructions", ts, tv[1]);
}

/*
 * The track of a legacy async event (phases b e n S T p F), as upstream
 * keys it: by its id (local ids within the process), and a scope that is
 * the event's name for S T p F, its category for b e n, or
 * "category:id_scope" when given. utid is the sequence's thread, or -1.
 */
static int64_t
te_async_track(struct tp *tp, const struct te *e, const char *name,
    int64_t utid)
{
	struct tp_async a;
	char scope[1024];
	int step;

	a.upid = utid >= 0 ? tp->threads[utid].upid : TP_NULL;
	if (e->id_field == 0 || (e->id_field == 10 && a.upid == TP_NULL))
		return -1;
	a.cookie = e->async_id;
	a.process_scoped = e->id_field == 10;
	a.name = e->has_name ? name : "";
	if (e->has_id_scope) {
		snprintf(scope, sizeof(scope), "%s:%.*s", e->has_cat ? e->cat :
		    "", (int)e->id_scopelen, (const char *)e->id_scope);
		a.scope = scope;
	} else if (strchr("STpF", e->phase) != NULL)
		a.scope = e->has_name ? name : NULL;
	else
		a.scope = e->has_cat ? e->cat : NULL;
	/* Upstream's compressor counts T as an end and F as an instant. */
	step = e->phase == 'b' || e->phase == 'S' ? 1 :
	    e->phase == 'e' || e->phase == 'T' ? -1 : 0;
	return tp_track_async(tp, &a, step);
}

/* An instant on a thread's track that has a thread time lasts no thread
 * time (0, not unknown), as upstream records it. */
static int64_t
instant_thread_dur(struct tp *tp, int64_t track, int64_t thread_ts)
{
	return thread_ts != TP_NULL && tp->tracks[track].utid != TP_NULL ? 0 :
	    TP_NULL;
}

/*
 * The track of an event that is not a legacy async one, as upstream picks
 * it: the descriptor track of its uuid (the event's, else the sequence
 * default's). For uuid 0: the sequence's thread (or the one its pid/tid
 * overrides name) for a legacy event, one that did not set its uuid, or
 * one that overrides pid/tid; else the default track. *fallback gets the
 * thread it fell back to, -1 if none; unless thread_track, its track is
 * not made (-1 is returned).
 */
/* The track uuid an event is on: its own, else its sequence's default;
 * 0: none. */
static uint64_t
te_uuid(const struct tp_gen *g, const struct te *e)
{
	return e->has_track ? e->track_uuid : g != NULL && g->has_track_uuid ?
	    g->track_uuid : 0;
}

/* Whether an event falls back to its thread's track (upstream's legacy
 * pid/tid tracks): of no track uuid, with its sequence's thread or
 * overrides of it. */
static int
te_falls_back(const struct tp_gen *g, const struct te *e)
{
	int thread_ok = g != NULL && g->has_thread;

	return te_uuid(g, e) == 0 && (((!e->has_track || !e->has_type) &&
	    thread_ok) || e->has_pid_override || (e->has_tid_override &&
	    thread_ok));
}

/*
 * The thread an event falls back to (te_falls_back): its sequence's, or
 * the one its overrides name; -1 if it does not, or falls on the
 * swapper's 0. Makes the thread, not a track.
 */
static int64_t
te_fallback_thread(struct tp *tp, struct tp_gen *g, const struct te *e)
{
	int thread_ok = g != NULL && g->has_thread;
	int64_t pid, tid;

	if (!te_falls_back(g, e))
		return -1;
	pid = thread_ok ? g->pid : 0;
	tid = thread_ok ? g->tid : 0;
	if (e->has_pid_override) {
		/* No thread of its own: upstream's synthetic tid of none. */
		pid = e->pid_override;
		tid = -1;
	}
	if (e->has_tid_override)
		tid = e->tid_override;
	/* pid and tid 0 are the swapper's, not a thread's of the trace. */
	if (pid == 0 || tid == 0)
		return -1;
	return tp_thread_in_process(tp, tid, pid);
}

/*
 * The thread an event's track will be of, known before the track is made
 * (upstream makes the thread's counters first): the fallback thread, or
 * a thread descriptor's own. -1 when only the track will tell.
 */
static int64_t
te_thread_ahead(struct tp *tp, struct tp_gen *g, const struct te *e)
{
	uint64_t uuid = te_uuid(g, e);

	return uuid != 0 ? tp_proto_track_thread(tp, uuid) :
	    te_fallback_thread(tp, g, e);
}

static int64_t
te_track(struct tp *tp, struct tp_gen *g, const struct te *e, char *name,
    struct tp_desc **d, int64_t *fallback, int thread_track)
{
	uint64_t uuid = te_uuid(g, e);
	int step = TP_POOL_FIRST;

	/* Where the event stands in its track's slices, for a track
	 * shared by merged siblings. */
	if (e->has_type ? e->type == TE_SLICE_BEGIN : e->phase == 'B')
		step = 1;
	else if (e->has_type ? e->type == TE_SLICE_END : e->phase == 'E')
		step = -1;
	else if (e->has_type ? e->type == TE_INSTANT :
	    e->phase != 0 && strchr("IiR", e->phase) != NULL)
		step = 0;
	*fallback = -1;
	if (!te_falls_back(g, e))
		return tp_proto_track_step(tp, uuid, d, e->has_name ? name :
		    NULL, step);
	if ((*fallback = te_fallback_thread(tp, g, e)) < 0)
		return -1;
	return thread_track ? tp_thread_track(tp, *fallback) : -1;
}

/* A legacy instant of global or process scope: on the tracks of such
 * instants, the process's being the event's thread's or track's. */
static int64_t
te_scoped_instant_track(struct tp *tp, const struct te *e, int64_t track,
    int64_t utid)
{
	int64_t upid = TP_NULL;

	if (e->instant_scope == 1)
		return tp_track_legacy_instants(tp, TP_NULL);
	if (utid >= 0)
		upid = tp->threads[utid].upid;
	else if (track >= 0 && tp->tracks[track].upid != TP_NULL)
		upid = tp->tracks[track].upid;
	else if (track >= 0 && tp->tracks[track].utid != TP_NULL)
		upid = tp->threads[tp->tracks[track].utid].upid;
	return upid == TP_NULL ? -1 : tp_track_legacy_instants(tp, upid);
}

/* A legacy v1 flow event (s, t, f): on the slice open on its track, or
 * for an f not bound to it, on the next slice to begin there. */
static void
te_flow_v1(struct tp *tp, const struct te *e, int64_t track, int64_t ts,
    const char *name)
{
	/* Flow ids are unscoped ones only, as upstream (and Catapult). */
	if (e->id_field != 6) {
		tp_stat_inc(tp, ST_FLOW_INVALID_ID, 1);
		return;
	}
	if (track < 0) {
		tp_stat_inc(tp, ST_TRACK_EVENT_PARSER_ERRORS, 1);
		return;
	}
	tp_flow_on_track(tp, e->phase == 's' ? TP_FLOW_BEGIN : e->phase == 't' ?
	    TP_FLOW_STEP : TP_FLOW_END, tp_flow_v1_key(tp, e->async_id,
	    e->has_cat ? e->cat : NULL, e->has_name ? name : NULL), track, ts,
	    e->bind_to_enclosing);
}

/* The flows of a slice (which began at ts): its legacy bind_id, then its
 * flow_ids and terminating_flow_ids, as upstream joins them. */
static void
te_flows(struct tp *tp, const struct te *e, int64_t id, int64_t ts)
{
	size_t i;

	if (e->has_bind_id) {
		switch (e->has_flow_direction ? e->flow_direction : 0) {
		case 2:
			tp_flow_begin(tp, e->bind_id, id, ts);
			break;
		case 3:
			tp_flow_step(tp, e->bind_id, id, ts);
			break;
		case 1:
			tp_flow_end(tp, e->bind_id, id, ts, 0);
			break;
		default:
			tp_stat_inc(tp, ST_FLOW_WITHOUT_DIRECTION, 1);
			break;
		}
	}
	for (i = 0; i < e->nflows; i++) {
		if (tp_flow_active(tp, e->flows[i]))
			tp_flow_step(tp, e->flows[i], id, ts);
		else
			tp_flow_begin(tp, e->flows[i], id, ts);
	}
	/* A terminating id of no live flow starts none. */
	for (i = 0; i < e->nterm; i++)
		if (tp_flow_active(tp, e->term_flows[i]))
			tp_flow_end(tp, e->term_flows[i], id, ts, 1);
}

void
tp_proto_track_event(struct tp *tp, struct tp_gen *g, int64_t ts,
    const int64_t tv[2], const uint8_t *buf, size_t len)
{
	struct te e;
	struct tp_desc *d = NULL;
	int64_t track = -1, set = TP_NULL, id = -1, passthrough;
	int64_t thread_ts = tv[0];
	double v;
	char name[1024];
	const uint64_t *xu;
	size_t i, nxu;
	int64_t async_utid = -1, fallback_utid = -1, utid, instr;
	int type, async, scoped_instant, counted;

	if (te_decode_untrusted(tp, g, buf, len, &e) == -1)
		return;
	tp_seen_ts(tp, ts);
	if (e.namelen >= sizeof(name))
		e.namelen = sizeof(name) - 1;
	if (e.has_name) {
		memcpy(name, e.name, e.namelen);
		name[e.namelen] = '\0';
	}

	async = !e.has_type && e.phase != 0 &&
	    strchr("beSTpFn", e.phase) != NULL;
	scoped_instant = !async && !e.has_type && (e.phase == 'i' ||
	    e.phase == 'I') && (e.instant_scope == 1 || e.instant_scope == 2);

	/*
	 * As upstream: legacy thread time and instruction count (the
	 * thread_time_* and thread_instruction_count_* fields) as counters
	 * of the event's thread, then its extra counters, then its own
	 * track, made last. A thread known only from the track (a child
	 * track of a thread's) gets its counters after it.
	 */
	counted = (e.has_type || e.phase != 0) && !scoped_instant &&
	    (tv[0] != TP_NULL || tv[1] != TP_NULL);
	if (counted && (utid = te_thread_ahead(tp, g, &e)) >= 0) {
		thread_values(tp, utid, ts, tv);
		counted = 0;
	}

	/* Extra counters: their values may give thread time. */
	xu = e.n_extra_uuids ? e.extra_uuids : g ? g->extra_uuids : NULL;
	nxu = e.n_extra_uuids ? e.n_extra_uuids : g ? g->n_extra : 0;
	for (i = 0; i < e.n_extra_values && i < nxu; i++) {
		struct tp_desc *cd = NULL;
		int64_t ct = tp_proto_track(tp, xu[i], &cd, NULL);

		if (ct < 0) {
			tp_stat_inc(tp, ST_TRACK_EVENT_PARSER_ERRORS, 1);
			continue;
		}
		v = counter_push(tp, g, xu[i], ct, ts, e.extra_values[i],
		    TP_NULL);
		if (cd != NULL && cd->builtin == 1 && (thread_ts == TP_NULL ||
		    !tp->tracks[ct].incremental))
			thread_ts = (int64_t)v;
	}
	xu = e.n_extra_d_uuids ? e.extra_d_uuids : g ? g->extra_double_uuids :
	    NULL;
	nxu = e.n_extra_d_uuids ? e.n_extra_d_uuids : g ? g->n_extra_double :
	    0;
	for (i = 0; i < e.n_extra_d_values && i < nxu; i++) {
		int64_t ct = tp_proto_track(tp, xu[i], NULL, NULL);

		if (ct >= 0)
			(void)counter_push(tp, g, xu[i], ct, ts,
			    e.extra_d_values[i], TP_NULL);
		else
			tp_stat_inc(tp, ST_TRACK_EVENT_PARSER_ERRORS, 1);
	}

	/* Track: a legacy async event's by its id; else as te_track. */
	if (async) {
		async_utid = g != NULL && g->has_thread ?
		    tp_thread_in_process(tp, g->tid, g->pid) : -1;
		track = te_async_track(tp, &e, name, async_utid);
	} else {
		track = te_track(tp, g, &e, name, &d, &fallback_utid,
		    !scoped_instant);
		if (scoped_instant)
			track = te_scoped_instant_track(tp, &e, track,
			    fallback_utid);
	}
	if (counted && track >= 0)
		thread_values(tp, tp->tracks[track].utid, ts, tv);

	type = e.type;
	if (async) {
		type = strchr("bS", e.phase) != NULL ? TE_SLICE_BEGIN :
		    strchr("eF", e.phase) != NULL ? TE_SLICE_END : TE_INSTANT;
	} else if (!e.has_type) {
		/* Legacy phases: B, E, X, I/i, C. */
		switch (e.phase) {
		case 'B': type = TE_SLICE_BEGIN; break;
		case 'E': type = TE_SLICE_END; break;
		case 'X': type = -'X'; break;
		case 'I': case 'i': case 'R': type = TE_INSTANT; break;
		case 'C': type = TE_COUNTER; break;
		case 's': case 't': case 'f':
			te_flow_v1(tp, &e, track, ts, name);
			return;
		default:
			if (e.n_extra_values || e.n_extra_d_values)
				return;
			type = 0;
			break;
		}
	}
	if (type == 0)
		return;
	if (track < 0) {
		tp_stat_inc(tp, ST_TRACK_EVENT_PARSER_ERRORS, 1);
		return;
	}
	if (async && type != TE_SLICE_END) {
		/* The id leads the slice's args, as upstream; an end keeps
		 * its begin's. */
		passthrough = async_utid;
		set = tp_arg_set_new(tp);
		tp_arg_int(tp, set, "legacy_trace_source_id",
		    "legacy_trace_source_id", (int64_t)e.async_id, "int");
	} else if (scoped_instant)
		passthrough = fallback_utid;
	else
		passthrough = type == TE_SLICE_END ? -1 :
		    te_passthrough_utid(tp, g, &e, track);
	/* As upstream, a slice of no thread (a legacy async one, an instant
	 * of process or global scope) keeps no thread time, and only a
	 * thread's slice its instruction count. */
	if (async || scoped_instant)
		thread_ts = TP_NULL;
	instr = async || scoped_instant || tp->tracks[track].utid == TP_NULL ?
	    TP_NULL : tv[1];
	switch (type) {
	case TE_SLICE_BEGIN:
		te_args(tp, g, &set, tp->tracks[track].utid != TP_NULL, buf,
		    len);
		te_passthrough_arg(tp, &set, passthrough);
		te_phase_arg(tp, &e, set);
		id = tp_slice_begin(tp, track, ts, e.has_cat ? e.cat : NULL,
		    e.has_name ? name : NULL, set, thread_ts);
		if (id >= 0)
			tp_slice_instr_start(tp, track, instr, TP_NULL);
		break;
	case TE_SLICE_END:
		/* As upstream, the innermost slice of its category and
		 * name (when it has them) ends. */
		tp_slice_instr_end(tp, track, e.has_cat ? e.cat : NULL,
		    e.has_name ? name : NULL, instr);
		id = tp_slice_end_matching(tp, track, ts, e.has_cat ? e.cat :
		    NULL, e.has_name ? name : NULL, thread_ts,
		    te_has_args(buf, len) ? &set : NULL);
		if (id >= 0 && set != TP_NULL)
			te_args(tp, g, &set, tp->tracks[track].utid != TP_NULL,
			    buf, len);
		break;
	case TE_INSTANT:
	case -'X':
		te_args(tp, g, &set, tp->tracks[track].utid != TP_NULL, buf,
		    len);
		te_passthrough_arg(tp, &set, passthrough);
		te_phase_arg(tp, &e, set);
		id = tp_slice_complete(tp, track, ts,
		    type == TE_INSTANT ? 0 : e.legacy_dur,
		    e.has_cat ? e.cat : NULL, e.has_name ? name : NULL, set,
		    thread_ts, type == TE_INSTANT ? instant_thread_dur(tp,
		    track, thread_ts) : e.legacy_thread_dur);
		if (id >= 0)
			tp_slice_instr_start(tp, track, instr, type ==
			    TE_INSTANT ? 0 : e.legacy_instr_delta);
		break;
	case TE_COUNTER:
		if (!e.has_counter) {
			tp_stat_inc(tp, ST_TRACK_EVENT_PARSER_ERRORS, 1);
			return;
		}
		/* A typed counter's value has the event's args, as
		 * upstream gives them; a legacy 'C' has none. */
		if (e.has_type) {
			te_args(tp, g, &set, tp->tracks[track].utid !=
			    TP_NULL, buf, len);
			te_passthrough_arg(tp, &set, passthrough);
		}
		(void)counter_push(tp, g, e.has_track ? e.track_uuid :
		    g != NULL ? g->track_uuid : 0, track, ts, e.counter, set);
		return;
	default:
		tp_stat_inc(tp, ST_TRACK_EVENT_PARSER_ERRORS, 1);
		return;
	}
	if (id < 0 || (async && strchr("Tp", e.phase) != NULL))
		return;
	/* An end's flows are the ended slice's, which began earlier. */
	te_flows(tp, &e, id, type == TE_SLICE_END ? tp->last_end_start : ts);
	(void)d;
}
