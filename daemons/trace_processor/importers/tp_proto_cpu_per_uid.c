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
 * cleared). Upstream samples every track at every packet and writes a
 * sample only when the value moves, with the last equal sample before it
 * (so the counter still steps there). Sampling every track at every packet
 * costs tracks times packets; here a track is visited only when its value
 * may move, and the last equal sample is found from when the track was
 * last sampled: at the previous packet for the totals and ranges, at the
 * previous packet of its sequence (or the last one before that sequence's
 * state was cleared) for a uid. The same uid sent on two sequences at once
 * is the one case this does not follow sample by sample.
 *
 * This happens as packets are read, in file order, like the sequence
 * state it depends on; the samples go through the sorter (SK_COUNTER).
 */
#include <stdlib.h>
#include <string.h>

#include "pbdec.h"
#include "tp_int.h"
#include "tp_proto.h"

#define UIDS_PER_USER	100000
#define FIRST_APP_UID	10000
#define NAME_LEN	64

/* uint64 -> uint64 in insertion order, with the entries the current
 * packet touched. */
struct omap {
	struct tp_hash	 idx;		/* key -> index */
	uint64_t	*key, *val;
	uint64_t	*stamp;		/* packet that last touched it */
	size_t		 n, cap;
	size_t		*touched;	/* indexes, this packet */
	size_t		 ntouched, captouched;
};

/* What one sequence has said, since its state was last cleared. */
struct uid_seq {
	struct tp_gen	*gen;		/* that state's generation, held */
	uint32_t	 clusters;
	struct omap	 times;		/* uid << 32 | cluster -> time */
	uint32_t	 gen_no;	/* generations seen before this one */
	int64_t		 cur_j, cur_ts;	/* its last packet: number, time */
	/* the last packet of each generation before this one */
	int64_t		*end_j, *end_ts;
	size_t		 capend;
};

/* What was last written of a track. */
struct sparse {
	double		 value;
	int64_t		 pushed;	/* packet number, in owner's count */
	int64_t		 owner;		/* sequence index; -1: all packets */
	uint32_t	 gen_no;	/* the owner's generation then */
};

struct tp_cpu_uid {
	struct uid_seq	*seqs;
	size_t		 nseqs, capseqs;
	struct tp_hash	 seq_idx;	/* sequence id -> index in seqs */
	uint64_t	 k;		/* packets read */
	int64_t		 prev_ts;	/* time of the packet before */
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

static int
grow(void **p, size_t *cap, size_t n, size_t size)
{
	size_t ncap;
	void *np;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	if ((np = realloc(*p, ncap * size)) == NULL)
		return -1;
	*p = np;
	*cap = ncap;
	return 0;
}

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
	free(m->stamp);
	free(m->touched);
	memset(m, 0, sizeof(*m));
}

/* The value of key, inserted as v when new (*isnew says), marked touched
 * by packet k; NULL when out of memory. */
static uint64_t *
omap_at(struct omap *m, uint64_t key, uint64_t v, uint64_t k, int *isnew)
{
	uint64_t *ip = tp_hash_get(&m->idx, key);
	size_t i, cap;

	if (isnew != NULL)
		*isnew = ip == NULL;
	if (ip == NULL) {
		if (m->n == m->cap) {
			cap = m->cap;
			if (grow((void **)&m->key, &cap, m->n,
			    sizeof(*m->key)) == -1)
				return NULL;
			cap = m->cap;
			if (grow((void **)&m->val, &cap, m->n,
			    sizeof(*m->val)) == -1)
				return NULL;
			cap = m->cap;
			if (grow((void **)&m->stamp, &cap, m->n,
			    sizeof(*m->stamp)) == -1)
				return NULL;
			m->cap = cap;
		}
		if (tp_hash_put(&m->idx, key, m->n) == -1)
			return NULL;
		m->key[m->n] = key;
		m->val[m->n] = v;
		m->stamp[m->n] = 0;
		i = m->n++;
	} else {
		i = (size_t)*ip;
	}
	if (m->stamp[i] != k) {
		if (grow((void **)&m->touched, &m->captouched, m->ntouched,
		    sizeof(*m->touched)) == -1)
			return NULL;
		m->touched[m->ntouched++] = i;
		m->stamp[i] = k;
	}
	return &m->val[i];
}

/*
 * The entries packet k touched, in the order upstream's hash map holds
 * its keys: it walks every key for each packet (those not touched give
 * no new value), so that order decides which track is made first. Left
 * in insertion order when out of memory.
 */
static void
omap_touched_order(struct omap *m, uint64_t k)
{
	size_t *order = tp_hashorder64(m->key, m->n, 16), i;

	if (order == NULL)
		return;
	m->ntouched = 0;
	for (i = 0; i < m->n; i++)
		if (m->stamp[order[i]] == k)
			m->touched[m->ntouched++] = order[i];
	free(order);
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

/* The sequence's index; its state starts again when its generation
 * changed, remembering where the one before ended. -1: out of memory. */
static int64_t
seq_get(struct tp_cpu_uid *c, uint32_t id, struct tp_gen *gen)
{
	uint64_t *ip = tp_hash_get(&c->seq_idx, id);
	struct uid_seq *s;

	if (ip == NULL) {
		if (grow((void **)&c->seqs, &c->capseqs, c->nseqs,
		    sizeof(*s)) == -1 || tp_hash_put(&c->seq_idx, id,
		    c->nseqs) == -1)
			return -1;
		s = &c->seqs[c->nseqs];
		memset(s, 0, sizeof(*s));
		omap_init(&s->times);
		s->gen = gen;
		if (gen != NULL)
			tp_proto_ref(gen);
		return (int64_t)c->nseqs++;
	}
	s = &c->seqs[*ip];
	if (s->gen != gen) {
		size_t cap = s->capend;

		if (grow((void **)&s->end_j, &cap, s->gen_no,
		    sizeof(*s->end_j)) == -1)
			return -1;
		cap = s->capend;
		if (grow((void **)&s->end_ts, &cap, s->gen_no,
		    sizeof(*s->end_ts)) == -1)
			return -1;
		s->capend = cap;
		s->end_j[s->gen_no] = s->cur_j;
		s->end_ts[s->gen_no] = s->cur_ts;
		s->gen_no++;
		omap_free(&s->times);
		omap_init(&s->times);
		s->clusters = 0;
		tp_proto_unref(s->gen);
		s->gen = gen;
		if (gen != NULL)
			tp_proto_ref(gen);
	}
	return (int64_t)*ip;
}

static void
sorted_push(struct tp *tp, int64_t ts, int64_t track, double v)
{
	struct sorted_counter sc = { track, v };

	(void)tp_sorter_push(tp, ts, SK_COUNTER, 0, NULL, &sc, sizeof(sc));
}

/* When the track was last sampled, in its owner's packet count. */
static void
last_sample(const struct tp_cpu_uid *c, const struct sparse *sp,
    int64_t *j, int64_t *ts)
{
	const struct uid_seq *o;

	if (sp->owner < 0) {
		*j = (int64_t)c->k - 1;
		*ts = c->prev_ts;
		return;
	}
	o = &c->seqs[sp->owner];
	if (o->gen_no == sp->gen_no) {
		*j = o->cur_j;
		*ts = o->cur_ts;
	} else {
		*j = o->end_j[sp->gen_no];
		*ts = o->end_ts[sp->gen_no];
	}
}

/*
 * A sample of track at ts, sampled by sequence owner (-1: by every
 * packet) at its packet j: written if it differs from the one before,
 * and then that one too at its own time if it was not written.
 */
static void
sample(struct tp *tp, struct tp_cpu_uid *c, int64_t ts, int64_t track,
    double v, int64_t owner, int64_t j)
{
	uint64_t *ip = tp_hash_get(&c->sparse_idx, (uint64_t)track);
	uint32_t gen_no = owner >= 0 ? c->seqs[owner].gen_no : 0;
	struct sparse *sp;
	int64_t lj, lts;

	if (track < 0)
		return;
	if (ip == NULL) {
		if (grow((void **)&c->sparse, &c->capsparse, c->nsparse,
		    sizeof(*sp)) == -1 || tp_hash_put(&c->sparse_idx,
		    (uint64_t)track, c->nsparse) == -1)
			return;
		sp = &c->sparse[c->nsparse++];
		sorted_push(tp, ts, track, v);
	} else {
		sp = &c->sparse[*ip];
		if (sp->value == v) {
			/* Sampled again: by someone else, it is no longer
			 * written at its last sample. */
			if (sp->owner != owner || sp->gen_no != gen_no) {
				sp->owner = owner;
				sp->gen_no = gen_no;
				sp->pushed = -1;
			}
			return;
		}
		last_sample(c, sp, &lj, &lts);
		if (sp->pushed < lj)
			sorted_push(tp, lts, track, sp->value);
		sorted_push(tp, ts, track, v);
	}
	sp->value = v;
	sp->owner = owner;
	sp->gen_no = gen_no;
	sp->pushed = j;
}

/* A track of kind by its first dimension (k1: s1 if not NULL, else i1)
 * and cluster, in milliseconds. */
static int64_t
counter_track(struct tp *tp, const char *name, const char *kind,
    const char *k1, const char *s1, int64_t i1, uint32_t cluster)
{
	struct tp_dim dims[2] = {
		s1 != NULL ? TP_DIM_STR(k1, s1) : TP_DIM_INT(k1, i1),
		TP_DIM_INT("cluster", cluster),
	};
	int created = 0;
	int64_t track = tp_track_intern_dimv(tp, TT_COUNTER, kind, name,
	    TP_NULL, dims, 2, &created);

	if (created)
		tp_track_unit(tp, track, "ms");
	return track;
}

static void
uid_sample(struct tp *tp, struct tp_cpu_uid *c, int64_t ts, uint64_t key,
    uint64_t v, int64_t owner, int64_t j)
{
	char name[NAME_LEN];
	uint32_t uid = (uint32_t)(key >> 32), cl = (uint32_t)key;

	snprintf(name, sizeof(name), "CPU for UID %u CL%u", uid, cl);
	sample(tp, c, ts, counter_track(tp, name, "android_cpu_per_uid",
	    "uid", NULL, uid, cl), (double)v, owner, j);
}

/* The touched totals of one kind ("System", "Apps"). */
static void
totals_sample(struct tp *tp, struct tp_cpu_uid *c, int64_t ts,
    const char *who, const struct omap *m)
{
	char name[NAME_LEN];
	size_t i, e;

	for (i = 0; i < m->ntouched; i++) {
		e = m->touched[i];
		snprintf(name, sizeof(name), "CPU for %s CL%u", who,
		    (uint32_t)m->key[e]);
		sample(tp, c, ts, counter_track(tp, name,
		    "android_cpu_per_uid_totals", "type", who, 0,
		    (uint32_t)m->key[e]), (double)m->val[e], -1,
		    (int64_t)c->k);
	}
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

	if ((t = omap_at(&s->times, key, raw, c->k, &isnew)) == NULL)
		return;
	if (!isnew)
		*t += raw;
	if ((last = omap_at(&c->last, key, *t, c->k, NULL)) == NULL)
		return;
	if (*t > *last)
		gain = *t - *last;
	*last = *t;
	if ((sum = omap_at(&c->cumul, (uint64_t)g << 32 | cl, 0, c->k,
	    NULL)) != NULL)
		*sum += gain;
	if ((sum = omap_at(g % UIDS_PER_USER < FIRST_APP_UID ? &c->sys :
	    &c->apps, cl, 0, c->k, NULL)) != NULL)
		*sum += gain;
}

static int
append(uint64_t **a, size_t *n, size_t *cap, uint64_t v)
{
	if (grow((void **)a, cap, *n, sizeof(**a)) == -1)
		return -1;
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

static void
packet_times(struct tp *tp, struct tp_cpu_uid *c, struct uid_seq *s,
    const uint8_t *buf, size_t len)
{
	struct pb it;
	struct pb_field f;
	uint64_t *uids = NULL, *times = NULL;
	size_t nu = 0, cu = 0, nt = 0, ct = 0, u = 0, i;
	uint32_t cl = 0;
	int err = 0;

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
}

void
tp_proto_cpu_per_uid(struct tp *tp, uint32_t seq, struct tp_gen *gen,
    int64_t ts, const uint8_t *buf, size_t len)
{
	struct tp_cpu_uid *c = state_get(tp);
	struct uid_seq *s;
	struct omap *m;
	int64_t q, j;
	size_t i, e;

	if (c == NULL || (q = seq_get(c, seq, gen)) < 0)
		return;
	s = &c->seqs[q];
	c->k++;
	j = s->cur_j + 1;
	c->sys.ntouched = c->apps.ntouched = c->cumul.ntouched = 0;
	c->last.ntouched = s->times.ntouched = 0;
	packet_times(tp, c, s, buf, len);
	omap_touched_order(&c->sys, c->k);
	omap_touched_order(&c->apps, c->k);
	omap_touched_order(&c->cumul, c->k);
	omap_touched_order(&s->times, c->k);
	/* The totals, then the ranges, then the uids, as upstream. */
	totals_sample(tp, c, ts, "System", &c->sys);
	totals_sample(tp, c, ts, "Apps", &c->apps);
	m = &c->cumul;
	for (i = 0; i < m->ntouched; i++) {
		e = m->touched[i];
		if (grouped((uint32_t)(m->key[e] >> 32)))
			uid_sample(tp, c, ts, m->key[e], m->val[e], -1,
			    (int64_t)c->k);
	}
	m = &s->times;
	for (i = 0; i < m->ntouched; i++) {
		e = m->touched[i];
		if (!grouped((uint32_t)(m->key[e] >> 32)))
			uid_sample(tp, c, ts, m->key[e], m->val[e], q, j);
	}
	c->prev_ts = ts;
	s->cur_j = j;
	s->cur_ts = ts;
}

struct uid_row {
	int64_t		 track;
	uint64_t	 key, total;
};

static int
uid_row_cmp(const void *a, const void *b)
{
	const struct uid_row *x = a, *y = b;

	return x->track < y->track ? -1 : x->track > y->track;
}

/*
 * __intrinsic_android_cpu_per_uid_track: what each uid (a range, for the
 * grouped ones) and cluster gained in the trace, by track, as upstream
 * writes it once the trace is read; rewritten at each checkpoint.
 */
int
tp_proto_cpu_per_uid_write(struct tp *tp)
{
	struct tp_cpu_uid *c = tp->cpu_uid;
	struct uid_row *rows;
	sqlite3_stmt *st = NULL;
	char name[NAME_LEN];
	size_t i;
	int rc = 0;

	if (c == NULL || c->cumul.n == 0)
		return 0;
	if ((rows = calloc(c->cumul.n, sizeof(*rows))) == NULL)
		return tp_seterr(tp, "%s: out of memory", __func__);
	for (i = 0; i < c->cumul.n; i++) {
		uint64_t key = c->cumul.key[i];

		snprintf(name, sizeof(name), "CPU for UID %u CL%u",
		    (uint32_t)(key >> 32), (uint32_t)key);
		rows[i].track = counter_track(tp, name, "android_cpu_per_uid",
		    "uid", NULL, (uint32_t)(key >> 32), (uint32_t)key);
		rows[i].key = key;
		rows[i].total = c->cumul.val[i];
	}
	qsort(rows, c->cumul.n, sizeof(*rows), uid_row_cmp);
	if (sqlite3_exec(tp->db, "DELETE FROM"
	    " __intrinsic_android_cpu_per_uid_track", NULL, NULL, NULL) !=
	    SQLITE_OK || sqlite3_prepare_v2(tp->db, "INSERT INTO"
	    " __intrinsic_android_cpu_per_uid_track(id, track_id, uid, cluster,"
	    " total_cpu_millis) VALUES(?,?,?,?,?)", -1, &st, NULL) !=
	    SQLITE_OK)
		rc = tp_seterr(tp, "%s: %s", __func__, sqlite3_errmsg(tp->db));
	for (i = 0; rc == 0 && i < c->cumul.n; i++) {
		sqlite3_bind_int64(st, 1, (int64_t)i);
		sqlite3_bind_int64(st, 2, rows[i].track);
		sqlite3_bind_int64(st, 3, (int64_t)(rows[i].key >> 32));
		sqlite3_bind_int64(st, 4, (int64_t)(uint32_t)rows[i].key);
		sqlite3_bind_int64(st, 5, (int64_t)rows[i].total);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = tp_seterr(tp, "%s: %s", __func__,
			    sqlite3_errmsg(tp->db));
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	free(rows);
	return rc;
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
		free(c->seqs[i].end_j);
		free(c->seqs[i].end_ts);
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
