/*
 * CpuPerUidData packets: CPU time per Android uid and cpu cluster, as
 * upstream shows it.
 *
 *   "CPU for UID <uid> CL<n>"       time since boot of each uid; the uids
 *                                   of a shared or isolated range (50000-
 *                                   59999, 90000-99999 within a user) add
 *                                   up on their range's first uid, counted
 *                                   from the trace's start
 *   "CPU for System|Apps CL<n>"     what uids below / from 10000 gained
 *                                   since the trace began
 *
 * A packet gives a uid's times as totals the first time the uid shows on
 * its sequence, as increments after that (until the sequence's state is
 * cleared). Every packet samples every track known; as upstream, a
 * sample equal to the one before is written only when the next differs
 * (so the counter still steps there), which happens here, before the
 * sorter, at the packet's time.
 */
#include <stdlib.h>
#include <string.h>

#include "pbdec.h"
#include "tp_int.h"
#include "tp_proto.h"

#define UIDS_PER_USER	100000
#define FIRST_APP_UID	10000
#define NAME_LEN	64

/* uint64 -> uint64, iterated in insertion order. */
struct omap {
	struct tp_hash	 idx;		/* key -> index */
	uint64_t	*key, *val;
	size_t		 n, cap;
};

/* What one sequence has said (reset with its incremental state). */
struct uid_seq {
	uint32_t	 id;
	struct tp_gen	*gen;		/* the state's generation, held */
	uint32_t	 clusters;
	struct omap	 times;		/* uid << 32 | cluster -> time */
};

/* A track's last sample, for writing only the samples that matter. */
struct sparse {
	double		 value;
	int64_t		 ts;
	int		 written;
};

struct tp_cpu_uid {
	struct uid_seq	*seqs;
	size_t		 nseqs, capseqs;
	struct tp_hash	 seq_idx;	/* sequence id -> index in seqs */
	struct omap	 last;		/* key -> last time, any sequence */
	struct omap	 cumul;		/* grouped uid key -> sum of gains */
	struct omap	 sys, apps;	/* cluster -> sum of gains */
	struct tp_hash	 sparse_idx;	/* track -> index in sparse */
	struct sparse	*sparse;
	size_t		 nsparse, capsparse;
};

struct sorted_counter {
	int64_t		 track;
	double		 value;
};

static void
omap_init(struct omap *m)
{
	memset(m, 0, sizeof(*m));
	tp_hash_init(&m->idx);
}

static void
omap_free(struct omap *m)
{
	tp_hash_free(&m->idx);
	free(m->key);
	free(m->val);
	memset(m, 0, sizeof(*m));
}

/* The value of key, inserted as v when new (*isnew says); NULL when out
 * of memory. */
static uint64_t *
omap_at(struct omap *m, uint64_t key, uint64_t v, int *isnew)
{
	uint64_t *i = tp_hash_get(&m->idx, key);

	if (isnew != NULL)
		*isnew = i == NULL;
	if (i != NULL)
		return &m->val[*i];
	if (m->n == m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 16;
		uint64_t *k = realloc(m->key, ncap * sizeof(*k)), *nv;

		if (k == NULL)
			return NULL;
		m->key = k;
		if ((nv = realloc(m->val, ncap * sizeof(*nv))) == NULL)
			return NULL;
		m->val = nv;
		m->cap = ncap;
	}
	if (tp_hash_put(&m->idx, key, m->n) == -1)
		return NULL;
	m->key[m->n] = key;
	m->val[m->n] = v;
	return &m->val[m->n++];
}

static int
grouped(uint32_t uid)
{
	uint32_t app = uid % UIDS_PER_USER;

	return (app >= 50000 && app < 60000) || (app >= 90000 && app < 100000);
}

static struct tp_cpu_uid *
state_get(struct tp *tp)
{
	struct tp_cpu_uid *c = tp->cpu_uid;

	if (c == NULL && (c = tp->cpu_uid = calloc(1, sizeof(*c))) != NULL) {
		omap_init(&c->last);
		omap_init(&c->cumul);
		omap_init(&c->sys);
		omap_init(&c->apps);
		tp_hash_init(&c->seq_idx);
		tp_hash_init(&c->sparse_idx);
	}
	return c;
}

/* The sequence's state, emptied when its generation changed. */
static struct uid_seq *
seq_get(struct tp_cpu_uid *c, uint32_t id, struct tp_gen *gen)
{
	uint64_t *i = tp_hash_get(&c->seq_idx, id);
	struct uid_seq *s;

	if (i == NULL) {
		if (c->nseqs == c->capseqs) {
			size_t ncap = c->capseqs ? c->capseqs * 2 : 4;
			void *p = realloc(c->seqs, ncap * sizeof(*s));

			if (p == NULL)
				return NULL;
			c->seqs = p;
			c->capseqs = ncap;
		}
		if (tp_hash_put(&c->seq_idx, id, c->nseqs) == -1)
			return NULL;
		s = &c->seqs[c->nseqs++];
		memset(s, 0, sizeof(*s));
		s->id = id;
		omap_init(&s->times);
		s->gen = gen;
		if (gen != NULL)
			gen->refs++;
		return s;
	}
	s = &c->seqs[*i];
	if (s->gen != gen) {
		omap_free(&s->times);
		omap_init(&s->times);
		s->clusters = 0;
		tp_proto_unref(s->gen);
		s->gen = gen;
		if (gen != NULL)
			gen->refs++;
	}
	return s;
}

static void
sorted_push(struct tp *tp, int64_t ts, int64_t track, double v)
{
	struct sorted_counter sc = { track, v };

	(void)tp_sorter_push(tp, ts, SK_COUNTER, 0, NULL, &sc, sizeof(sc));
}

/* A sample of track: written if it differs from the one before, and
 * then that one too if it was held back. */
static void
sample(struct tp *tp, struct tp_cpu_uid *c, int64_t ts, int64_t track,
    double v)
{
	uint64_t *i = tp_hash_get(&c->sparse_idx, (uint64_t)track);
	struct sparse *s;

	if (track < 0)
		return;
	if (i == NULL) {
		if (c->nsparse == c->capsparse) {
			size_t ncap = c->capsparse ? c->capsparse * 2 : 16;
			void *p = realloc(c->sparse, ncap * sizeof(*s));

			if (p == NULL)
				return;
			c->sparse = p;
			c->capsparse = ncap;
		}
		if (tp_hash_put(&c->sparse_idx, (uint64_t)track,
		    c->nsparse) == -1)
			return;
		s = &c->sparse[c->nsparse++];
		sorted_push(tp, ts, track, v);
		s->written = 1;
	} else {
		s = &c->sparse[*i];
		if (s->value != v) {
			if (!s->written)
				sorted_push(tp, s->ts, track, s->value);
			sorted_push(tp, ts, track, v);
			s->written = 1;
		} else {
			s->written = 0;
		}
	}
	s->value = v;
	s->ts = ts;
}

static int64_t
counter_track(struct tp *tp, const char *name, const char *kind,
    const char *k1, const char *s1, int64_t i1, uint32_t cluster)
{
	size_t n = tp->ntracks;
	int64_t track = tp_track_intern(tp, TT_COUNTER, name, TP_NULL);
	struct tp_track *t;

	if (track < 0 || tp->ntracks == n)
		return track;
	tp_track_kind(tp, track, kind);
	tp_track_unit(tp, track, "ms");
	t = &tp->tracks[track];
	t->dim_set = tp_arg_set_new(tp);
	if (s1 != NULL)
		tp_arg_str(tp, t->dim_set, k1, k1, s1, strlen(s1), NULL);
	else
		tp_arg_int(tp, t->dim_set, k1, k1, i1, "int");
	tp_arg_int(tp, t->dim_set, "cluster", "cluster", cluster, "int");
	return track;
}

static void
uid_sample(struct tp *tp, struct tp_cpu_uid *c, int64_t ts, uint64_t key,
    uint64_t v)
{
	char name[NAME_LEN];
	uint32_t uid = (uint32_t)(key >> 32), cl = (uint32_t)key;

	snprintf(name, sizeof(name), "CPU for UID %u CL%u", uid, cl);
	sample(tp, c, ts, counter_track(tp, name, "android_cpu_per_uid",
	    "uid", NULL, uid, cl), (double)v);
}

static void
total_sample(struct tp *tp, struct tp_cpu_uid *c, int64_t ts,
    const char *who, uint32_t cl, uint64_t v)
{
	char name[NAME_LEN];

	snprintf(name, sizeof(name), "CPU for %s CL%u", who, cl);
	sample(tp, c, ts, counter_track(tp, name,
	    "android_cpu_per_uid_totals", "type", who, 0, cl), (double)v);
}

/* One time of a (uid, cluster): the sequence's total, and what the uid
 * gained since any sequence last gave it. */
static void
add_time(struct tp_cpu_uid *c, struct uid_seq *s, uint32_t uid,
    uint32_t cl, uint64_t raw)
{
	uint64_t key = (uint64_t)uid << 32 | cl, *t, *last, *sum, gain = 0;
	uint32_t g = grouped(uid) ? uid - uid % 10000 : uid;
	int isnew;

	if ((t = omap_at(&s->times, key, raw, &isnew)) == NULL)
		return;
	if (!isnew)
		*t += raw;
	if ((last = omap_at(&c->last, key, *t, NULL)) == NULL)
		return;
	if (*t > *last)
		gain = *t - *last;
	*last = *t;
	if ((sum = omap_at(&c->cumul, (uint64_t)g << 32 | cl, 0, NULL)) !=
	    NULL)
		*sum += gain;
	if ((sum = omap_at(g % UIDS_PER_USER < FIRST_APP_UID ? &c->sys :
	    &c->apps, cl, 0, NULL)) != NULL)
		*sum += gain;
}

static int
append(uint64_t **a, size_t *n, size_t *cap, uint64_t v)
{
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		void *p = realloc(*a, ncap * sizeof(**a));

		if (p == NULL)
			return -1;
		*a = p;
		*cap = ncap;
	}
	(*a)[(*n)++] = v;
	return 0;
}

/* A packed or plain repeated varint field, appended to *a. */
static int
varints_untrusted(const struct pb_field *f, uint64_t **a, size_t *n,
    size_t *cap)
{
	struct pb_packed pk;
	uint64_t v;

	if (f->wire == PB_VARINT)
		return append(a, n, cap, f->u);
	if (f->wire != PB_LEN)
		return 0;
	pb_packed_init(&pk, f);
	while (pb_packed_varint_untrusted(&pk, &v))
		if (append(a, n, cap, v) == -1)
			return -1;
	return pk.err ? -1 : 0;
}

void
tp_proto_cpu_per_uid(struct tp *tp, uint32_t seq, struct tp_gen *gen,
    int64_t ts, const uint8_t *buf, size_t len)
{
	struct tp_cpu_uid *c = state_get(tp);
	struct uid_seq *s;
	struct pb it;
	struct pb_field f;
	uint64_t *uids = NULL, *times = NULL;
	size_t nu = 0, cu = 0, nt = 0, ct = 0, u = 0, i;
	uint32_t cl = 0;
	int err = 0;

	if (c == NULL || (s = seq_get(c, seq, gen)) == NULL)
		return;
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 1 && f.wire == PB_VARINT)
			s->clusters = (uint32_t)f.u;
		else if (f.id == 2)
			err |= varints_untrusted(&f, &uids, &nu, &cu);
		else if (f.id == 3)
			err |= varints_untrusted(&f, &times, &nt, &ct);
	}
	if (it.err || err)
		tp_stat_inc(tp, ST_PROTO_DECODE_ERRORS, 1);
	/* Times run uid by uid, clusters times each; extra times are
	 * dropped, and so is a missing rest. Without the cluster count
	 * (the sequence's first packet has it) they cannot be read. */
	if (s->clusters == 0 && nt > 0) {
		tp_stat_inc(tp, ST_PACKET_SKIPPED_STATE_INVALID, 1);
		nt = 0;
	}
	for (i = 0; i < nt && u < nu; i++) {
		add_time(c, s, (uint32_t)uids[u], cl, times[i]);
		if (++cl >= s->clusters) {
			cl = 0;
			u++;
		}
	}
	free(uids);
	free(times);
	for (i = 0; i < c->sys.n; i++)
		total_sample(tp, c, ts, "System", (uint32_t)c->sys.key[i],
		    c->sys.val[i]);
	for (i = 0; i < c->apps.n; i++)
		total_sample(tp, c, ts, "Apps", (uint32_t)c->apps.key[i],
		    c->apps.val[i]);
	for (i = 0; i < c->cumul.n; i++)
		if (grouped((uint32_t)(c->cumul.key[i] >> 32)))
			uid_sample(tp, c, ts, c->cumul.key[i], c->cumul.val[i]);
	for (i = 0; i < s->times.n; i++)
		if (!grouped((uint32_t)(s->times.key[i] >> 32)))
			uid_sample(tp, c, ts, s->times.key[i], s->times.val[i]);
}

void
tp_proto_cpu_per_uid_sorted(struct tp *tp, const struct tp_sort_item *it)
{
	struct sorted_counter sc;

	if (it->len != sizeof(sc))
		return;
	memcpy(&sc, it->data, sizeof(sc));
	tp_counter_insert(tp, it->ts, sc.track, sc.value, TP_NULL);
}

void
tp_proto_cpu_per_uid_free(struct tp *tp)
{
	struct tp_cpu_uid *c = tp->cpu_uid;
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; i < c->nseqs; i++) {
		omap_free(&c->seqs[i].times);
		tp_proto_unref(c->seqs[i].gen);
	}
	free(c->seqs);
	tp_hash_free(&c->seq_idx);
	omap_free(&c->last);
	omap_free(&c->cumul);
	omap_free(&c->sys);
	omap_free(&c->apps);
	tp_hash_free(&c->sparse_idx);
	free(c->sparse);
	free(c);
	tp->cpu_uid = NULL;
}
