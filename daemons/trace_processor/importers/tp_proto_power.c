/*
 * Android's power probes as counter tracks, named and typed as upstream's:
 *
 *   PowerRails                        "power.<rail>_uws" (or a well-known
 *                                     "power.rails.<what>"), power_rails
 *   AndroidEnergyEstimationBreakdown  the consumer's name,
 *                                     android_energy_estimation_breakdown
 *                                     (and _per_uid, one track per app)
 *   EntityStateResidency              "Entity residency: <e> is <s>",
 *                                     entity_state
 *
 * The descriptors name what the samples refer to by index; they come in
 * packets of no time of their own, so they are read at tokenization and
 * the samples in time order. A PowerRails packet bundles samples of
 * their own times (timestamp_ms): each goes through the sorter alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbdec.h"
#include "tp_int.h"
#include "tp_proto.h"

#define NAME_MAX_LEN	256
#define RAIL_MAX_INDEX	256	/* upstream's: larger ones are skipped */

/* What an SK_POWER_RAIL item holds: one energy sample. */
struct rail_sample {
	uint64_t	 session;	/* session_uuid */
	int64_t		 packet_ts;	/* its packet's, an arg */
	uint64_t	 energy;
	uint32_t	 index;
};

/* What a descriptor says of one id: an energy consumer's name, type
 * (and ordinal); an entity state's entity, state and track name. */
#define DESC_STRS	3
struct desc {
	char		*s[DESC_STRS];
	int64_t		 ordinal;
};

/* The descriptions by id; the first of an id stays, as upstream's. */
struct descs {
	struct tp_hash	 ids;		/* id -> v[i] */
	struct desc	*v;
	size_t		 n, cap;
};

struct tp_power {
	struct tp_hash	 sessions;	/* session_uuid -> ordinal */
	/* machine << 32 | ordinal << 9 | index -> track: each machine's
	 * rails are its own */
	struct tp_hash	 rails;
	struct descs	 consumers;	/* by energy_consumer_id */
	struct descs	 states;	/* by entity << 32 | state index */
};

static struct tp_power *
power_get(struct tp *tp)
{
	struct tp_power *p = tp->power;

	if (p == NULL && (p = calloc(1, sizeof(*p))) != NULL) {
		tp_hash_init(&p->sessions);
		tp_hash_init(&p->rails);
		tp_hash_init(&p->consumers.ids);
		tp_hash_init(&p->states.ids);
		tp->power = p;
	}
	return p;
}

/* Copies the strings of id's first description (NULL ones stay NULL). */
static void
descs_add(struct descs *d, uint64_t id, const char *const s[DESC_STRS],
    int64_t ordinal)
{
	struct desc *e;
	size_t i;
	int ok = 1;

	if (tp_hash_get(&d->ids, id) != NULL ||
	    tp_grow((void **)&d->v, &d->cap, d->n, sizeof(*e)) == -1)
		return;
	e = &d->v[d->n];
	e->ordinal = ordinal;
	for (i = 0; i < DESC_STRS; i++)
		if ((e->s[i] = s[i] != NULL ? strdup(s[i]) : NULL) == NULL &&
		    s[i] != NULL)
			ok = 0;
	if (ok && tp_hash_put(&d->ids, id, d->n) == 0) {
		d->n++;
		return;
	}
	for (i = 0; i < DESC_STRS; i++)
		free(e->s[i]);
}

static const struct desc *
descs_get(const struct descs *d, uint64_t id)
{
	uint64_t *i = tp_hash_get(&d->ids, id);

	return i != NULL ? &d->v[*i] : NULL;
}

static void
descs_free(struct descs *d)
{
	size_t i, j;

	for (i = 0; i < d->n; i++)
		for (j = 0; j < DESC_STRS; j++)
			free(d->v[i].s[j]);
	free(d->v);
	tp_hash_free(&d->ids);
}

/*
 * A proto string as a C string of at most NAME_MAX_LEN - 1 bytes in dst,
 * which is returned; NULL when the field was absent (id 0), which upstream
 * keeps as a null string, unlike an empty one.
 */
static const char *
str_copy(char *dst, const struct pb_field *f)
{
	size_t n = f->wire == PB_LEN ? f->len : 0;

	if (n >= NAME_MAX_LEN)
		n = NAME_MAX_LEN - 1;
	if (n > 0)
		memcpy(dst, f->data, n);
	dst[n] = '\0';
	return f->id != 0 ? dst : NULL;
}

static void
arg_str_or_null(struct tp *tp, int64_t set, const char *key, const char *s)
{
	if (s != NULL)
		tp_arg_str(tp, set, key, key, s, strlen(s), NULL);
	else
		tp_arg_str_null(tp, set, key);
}

/* Power rails ---------------------------------------------------------- */

/*
 * Rails of Pixel's power monitors upstream shows by what they feed: the
 * first suffix a raw name ends with names its track "power.rails.<what>".
 */
static const struct {
	const char	*suffix;
	const char	*what;
} well_known_rails[] = {
	{ "M_VDD_CPUCL0", "cpu.little" },
	{ "M_VDD_CPUCL0_M", "cpu.little.mem" },
	{ "M_VDD_CPUCL1", "cpu.mid" },
	{ "M_VDD_CPUCL1_M", "cpu.mid.mem" },
	{ "M_VDD_CPUCL2", "cpu.big" },
	{ "M_VDD_INT", "system.fabric" },
	{ "M_VDD_TPU", "tpu" },
	{ "VSYS_PWR_DISP", "display" },
	{ "VSYS_PWR_DISPLAY", "display" },
	{ "M_DISP", "ldo.main.a.display" },
	{ "VSYS_PWR_MODEM", "modem" },
	{ "M_VDD_MIF", "memory.interface" },
	{ "VSYS_PWR_WLAN_BT", "wifi.bt" },
	{ "VSYS_PWR_MMWAVE", "mmwave" },
	{ "S_VDD_AOC_RET", "aoc.memory" },
	{ "S_VDD_AOC", "aoc.logic" },
	{ "S_VDDQ_MEM", "ddr.a" },
	{ "S_VDD2L", "ddr.b" },
	{ "S_VDD2L_MEM", "ddr.b" },
	{ "S_VDD2H_MEM", "ddr.c" },
	{ "S_VDD_G3D", "gpu" },
	{ "S_VDD_G3D_L2", "gpu.l2" },
	{ "S_GNSS_CORE", "gps" },
	{ "VSYS_PWR_RFFE", "radio.frontend" },
	{ "VSYS_PWR_CAMERA", "camera" },
	{ "S_VDD_CAM", "multimedia" },
	{ "S_UDFPS", "udfps" },
	{ "S_PLL_MIPI_UFS", "ufs" },
	{ "M_LLDO1", "ldo.main.a" },
	{ "M_LLDO2", "ldo.main.b" },
	{ "S_LLDO1", "ldo.sub" },
};

static const char *
rail_well_known(const char *raw)
{
	size_t i, n = strlen(raw), sl;

	for (i = 0; i < sizeof(well_known_rails) /
	    sizeof(well_known_rails[0]); i++) {
		sl = strlen(well_known_rails[i].suffix);
		if (n >= sl && strcmp(raw + n - sl,
		    well_known_rails[i].suffix) == 0)
			return well_known_rails[i].what;
	}
	return NULL;
}

/* A session's small number (sessions are few), made on first use. */
static int
rail_session(struct tp_power *p, uint64_t uuid, uint64_t *ord)
{
	uint64_t *v = tp_hash_get(&p->sessions, uuid);

	if (v != NULL) {
		*ord = *v;
		return 0;
	}
	*ord = p->sessions.count;
	return tp_hash_put(&p->sessions, uuid, *ord);
}

/* One RailDescriptor: its track (one per raw name and session). */
static void
rail_descriptor_untrusted(struct tp *tp, struct tp_power *p, uint64_t session,
    const uint8_t *buf, size_t len)
{
	struct pb it;
	struct pb_field f, fname = { 0 }, fsub = { 0 };
	char raw[NAME_MAX_LEN], sub[NAME_MAX_LEN], name[NAME_MAX_LEN + 32];
	const char *what, *raw_s, *sub_s;
	uint64_t index = 0, ord;
	int64_t track, set;
	int created;
	struct tp_dim dims[2];

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 1 && f.wire == PB_VARINT)
			index = (uint32_t)f.u;	/* a uint32, as upstream's */
		else if (f.id == 2)
			fname = f;
		else if (f.id == 3)
			fsub = f;
	}
	if (it.err) {
		tp_stat_inc(tp, ST_PROTO_DECODE_ERRORS, 1);
		return;
	}
	if (index > RAIL_MAX_INDEX || rail_session(p, session, &ord) == -1)
		return;
	raw_s = str_copy(raw, &fname);
	sub_s = str_copy(sub, &fsub);
	if ((what = rail_well_known(raw)) != NULL)
		snprintf(name, sizeof(name), "power.rails.%s", what);
	else
		snprintf(name, sizeof(name), "power.%s_uws", raw);
	dims[0] = TP_DIM_STR("name", raw_s);
	/* Upstream keeps 32 bits of the session in the dimension: sessions
	 * that differ above them share the rail's track. */
	dims[1] = TP_DIM_INT("session_uuid", (int64_t)(uint32_t)session);
	track = tp_track_intern_dimv(tp, TT_COUNTER, "power_rails", name,
	    TP_NULL, dims, 2, &created);
	if (track < 0)
		return;
	if (created) {
		set = tp_track_source_set(tp, track);
		arg_str_or_null(tp, set, "raw_name", raw_s);
		arg_str_or_null(tp, set, "subsystem_name", sub_s);
	}
	(void)tp_hash_put(&p->rails, (uint64_t)tp->machine << 32 | ord << 9 |
	    index, (uint64_t)track);
}

/* One EnergyData of a packet at ts: sorted at its own time. */
static void
rail_sample_untrusted(struct tp *tp, int64_t ts, uint64_t session,
    const uint8_t *buf, size_t len)
{
	struct pb it;
	struct pb_field f;
	struct rail_sample s;
	int64_t at = ts;
	int has_ms = 0;

	memset(&s, 0, sizeof(s));
	s.session = session;
	s.packet_ts = ts;
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.wire != PB_VARINT)
			continue;
		if (f.id == 1)
			s.index = (uint32_t)f.u;
		else if (f.id == 3)
			s.energy = f.u;
		else if (f.id == 2) {
			/* Boot time in ms (of the packet's machine). Wrapped
			 * as upstream's signed product wraps: a time past
			 * the range comes out negative and the sorter drops
			 * it. */
			at = (int64_t)(f.u * 1000000u);
			has_ms = 1;
		}
	}
	if (it.err) {
		tp_stat_inc(tp, ST_PROTO_DECODE_ERRORS, 1);
		return;
	}
	/* Into trace time; without a way there, dropped (counted). */
	if (has_ms && tp_clock_to_trace(tp, 0, TP_CLOCK_BOOTTIME, at,
	    &at) == -1)
		return;
	(void)tp_sorter_push(tp, at, SK_POWER_RAIL, 0, NULL, &s, sizeof(s));
}

void
tp_proto_power_rails_tokenize(struct tp *tp, int64_t ts, const uint8_t *buf,
    size_t len)
{
	struct tp_power *p = power_get(tp);
	struct pb it;
	struct pb_field f;
	uint64_t session = 0;
	int has_data = 0;

	if (p == NULL)
		return;
	/* The session may follow the descriptors it scopes. */
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 3 && f.wire == PB_VARINT)
			session = f.u;
		has_data |= f.id == 2 && f.wire == PB_LEN;
	}
	if (it.err) {
		tp_stat_inc(tp, ST_PROTO_DECODE_ERRORS, 1);
		return;
	}
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1)
		if (f.id == 1 && f.wire == PB_LEN)
			rail_descriptor_untrusted(tp, p, session, f.data,
			    f.len);
	if (!has_data) {
		tp_import_log(tp, ST_POWER_RAIL_EMPTY_PACKET, ts, TP_NULL,
		    TP_NULL);
		return;
	}
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1)
		if (f.id == 2 && f.wire == PB_LEN)
			rail_sample_untrusted(tp, ts, session, f.data, f.len);
}

void
tp_proto_power_rail_sorted(struct tp *tp, int64_t ts, const uint8_t *data,
    size_t len)
{
	struct tp_power *p = tp->power;
	struct rail_sample s;
	uint64_t *ord, *track;
	int64_t set;

	if (p == NULL || len != sizeof(s))
		return;
	memcpy(&s, data, sizeof(s));
	if ((ord = tp_hash_get(&p->sessions, s.session)) == NULL ||
	    (track = tp_hash_get(&p->rails, (uint64_t)tp->machine << 32 |
	    *ord << 9 | s.index)) == NULL) {
		tp_stat_inc(tp, ST_POWER_RAIL_UNKNOWN_INDEX, 1);
		return;
	}
	set = tp_arg_set_new(tp);
	tp_arg_int(tp, set, "packet_ts", "packet_ts", s.packet_ts, "uint");
	tp_counter_insert(tp, ts, (int64_t)*track, (double)s.energy, set);
}

/* Energy estimation ---------------------------------------------------- */

static void
energy_consumer_untrusted(struct tp *tp, struct tp_power *p,
    const uint8_t *buf, size_t len)
{
	struct pb it;
	struct pb_field f, fname = { 0 }, ftype = { 0 };
	char name[NAME_MAX_LEN], type[NAME_MAX_LEN];
	const char *strs[DESC_STRS];
	int64_t id = 0, ordinal = 0;
	int has_id = 0;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 1 && f.wire == PB_VARINT) {
			id = (int32_t)f.u;
			has_id = 1;
		} else if (f.id == 2 && f.wire == PB_VARINT)
			ordinal = (int32_t)f.u;
		else if (f.id == 3)
			ftype = f;
		else if (f.id == 4)
			fname = f;
	}
	if (it.err || !has_id) {
		tp_stat_inc(tp, ST_ENERGY_DESCRIPTOR_INVALID, 1);
		return;
	}
	strs[0] = str_copy(name, &fname);
	strs[1] = str_copy(type, &ftype);
	strs[2] = NULL;
	descs_add(&p->consumers, (uint64_t)id, strs, ordinal);
}

int
tp_proto_energy_descriptor_tokenize(struct tp *tp, const uint8_t *buf,
    size_t len)
{
	struct tp_power *p = power_get(tp);
	struct pb it, d;
	struct pb_field f, df;
	int found = 0;

	if (p == NULL)
		return 0;
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id != 1 || f.wire != PB_LEN)
			continue;
		found = 1;
		pb_init(&d, f.data, f.len);
		while (pb_next_untrusted(&d, &df) == 1)
			if (df.id == 1 && df.wire == PB_LEN)
				energy_consumer_untrusted(tp, p, df.data,
				    df.len);
		if (d.err)
			tp_stat_inc(tp, ST_ENERGY_DESCRIPTOR_INVALID, 1);
	}
	return found;
}

/* One app's share: its own track, below no other. */
static void
energy_uid_untrusted(struct tp *tp, int64_t ts, int64_t consumer,
    const struct desc *c, const uint8_t *buf, size_t len)
{
	struct pb it;
	struct pb_field f;
	int64_t uid = 0, energy = 0, track;
	int has_uid = 0, has_energy = 0;
	struct tp_dim dims[2];

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.wire != PB_VARINT)
			continue;
		if (f.id == 1) {
			uid = (uint32_t)f.u;	/* a uid is unsigned */
			has_uid = 1;
		} else if (f.id == 2) {
			energy = (int64_t)f.u;
			has_energy = 1;
		}
	}
	if (it.err || !has_uid || !has_energy) {
		tp_stat_inc(tp, ST_ENERGY_UID_BREAKDOWN_MISSING_VALUES, 1);
		return;
	}
	dims[0] = TP_DIM_INT("energy_consumer_id", (int64_t)(uint32_t)consumer);
	dims[1] = TP_DIM_INT("uid", uid);
	track = tp_track_intern_dimv(tp, TT_COUNTER,
	    "android_energy_estimation_breakdown_per_uid", c->s[0], TP_NULL,
	    dims, 2, NULL);
	if (track >= 0)
		tp_counter_insert(tp, ts, track, (double)energy, TP_NULL);
}

void
tp_proto_energy_breakdown(struct tp *tp, int64_t ts, const uint8_t *buf,
    size_t len)
{
	struct tp_power *p = tp->power;
	struct pb it;
	struct pb_field f;
	const struct desc *c;
	int64_t id = 0, energy = 0, track, set;
	int has_id = 0, has_energy = 0, created;
	struct tp_dim dim;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 2 && f.wire == PB_VARINT) {
			id = (int32_t)f.u;
			has_id = 1;
		} else if (f.id == 3 && f.wire == PB_VARINT) {
			energy = (int64_t)f.u;
			has_energy = 1;
		}
	}
	if (it.err || !has_id || !has_energy || p == NULL ||
	    (c = descs_get(&p->consumers, (uint64_t)id)) == NULL) {
		tp_stat_inc(tp, ST_ENERGY_BREAKDOWN_MISSING_VALUES, 1);
		return;
	}
	/* An unsigned dimension, as upstream's. */
	dim = TP_DIM_INT("energy_consumer_id", (int64_t)(uint32_t)id);
	track = tp_track_intern_dimv(tp, TT_COUNTER,
	    "android_energy_estimation_breakdown", c->s[0], TP_NULL, &dim, 1,
	    &created);
	if (track < 0)
		return;
	if (created) {
		set = tp_track_source_set(tp, track);
		arg_str_or_null(tp, set, "consumer_type", c->s[1]);
		tp_arg_int(tp, set, "ordinal", "ordinal", c->ordinal, "int");
	}
	tp_counter_insert(tp, ts, track, (double)energy, TP_NULL);
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1)
		if (f.id == 4 && f.wire == PB_LEN)
			energy_uid_untrusted(tp, ts, id, c, f.data, f.len);
}

/* Entity state residency ----------------------------------------------- */

static uint64_t
state_key(int64_t entity, int64_t state)
{
	return (uint64_t)(uint32_t)entity << 32 | (uint32_t)state;
}

static void
entity_state_untrusted(struct tp *tp, struct tp_power *p, const uint8_t *buf,
    size_t len)
{
	struct pb it;
	struct pb_field f, fent = { 0 }, fst = { 0 };
	char ent[NAME_MAX_LEN], st[NAME_MAX_LEN], name[2 * NAME_MAX_LEN + 32];
	const char *strs[DESC_STRS];
	int64_t ei = 0, si = 0;
	int has_e = 0, has_s = 0;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 1 && f.wire == PB_VARINT) {
			ei = (int32_t)f.u;
			has_e = 1;
		} else if (f.id == 2 && f.wire == PB_VARINT) {
			si = (int32_t)f.u;
			has_s = 1;
		} else if (f.id == 3)
			fent = f;
		else if (f.id == 4)
			fst = f;
	}
	/* Upstream counts these as bad energy descriptors. */
	if (it.err || !has_e || !has_s) {
		tp_stat_inc(tp, ST_ENERGY_DESCRIPTOR_INVALID, 1);
		return;
	}
	strs[0] = str_copy(ent, &fent);
	strs[1] = str_copy(st, &fst);
	strs[2] = name;
	snprintf(name, sizeof(name), "Entity residency: %s is %s", ent, st);
	descs_add(&p->states, state_key(ei, si), strs, 0);
}

void
tp_proto_entity_states_tokenize(struct tp *tp, const uint8_t *buf,
    size_t len)
{
	struct tp_power *p = power_get(tp);
	struct pb it;
	struct pb_field f;

	if (p == NULL)
		return;
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1)
		if (f.id == 1 && f.wire == PB_LEN)
			entity_state_untrusted(tp, p, f.data, f.len);
}

void
tp_proto_entity_residency(struct tp *tp, int64_t ts, const uint8_t *buf,
    size_t len)
{
	struct tp_power *p = tp->power;
	struct pb it, r;
	struct pb_field f, rf;
	const struct desc *e;
	int64_t entity, state, track;
	uint64_t ms;
	int any = 0;
	struct tp_dim dims[2];

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id != 2 || f.wire != PB_LEN)
			continue;
		any = 1;
		entity = state = 0;
		ms = 0;
		pb_init(&r, f.data, f.len);
		while (pb_next_untrusted(&r, &rf) == 1) {
			if (rf.wire != PB_VARINT)
				continue;
			if (rf.id == 1)
				entity = (int32_t)rf.u;
			else if (rf.id == 2)
				state = (int32_t)rf.u;
			else if (rf.id == 3)
				ms = rf.u;
		}
		/* As upstream: the rest of the packet goes with it. */
		if (r.err || p == NULL || (e = descs_get(&p->states,
		    state_key(entity, state))) == NULL) {
			tp_stat_inc(tp, ST_ENTITY_STATE_RESIDENCY_LOOKUP_FAILED,
			    1);
			return;
		}
		dims[0] = TP_DIM_STR("entity_name", e->s[0]);
		dims[1] = TP_DIM_STR("state_name", e->s[1]);
		track = tp_track_intern_dimv(tp, TT_COUNTER, "entity_state",
		    e->s[2], TP_NULL, dims, 2, NULL);
		if (track >= 0)
			tp_counter_insert(tp, ts, track, (double)ms, TP_NULL);
	}
	if (!any)
		tp_stat_inc(tp, ST_ENTITY_STATE_RESIDENCY_INVALID, 1);
}

void
tp_proto_power_free(struct tp *tp)
{
	struct tp_power *p = tp->power;

	if (p == NULL)
		return;
	descs_free(&p->consumers);
	descs_free(&p->states);
	tp_hash_free(&p->sessions);
	tp_hash_free(&p->rails);
	free(p);
	tp->power = NULL;
}
