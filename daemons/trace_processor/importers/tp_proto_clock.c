/*
 * Clocks of a proto trace: ClockSnapshot packets tie clocks together, and
 * every timestamp is converted into the trace's clock, as upstream's clock
 * tracker converts them.
 *
 * The trace clock is BOOTTIME unless a snapshot names another
 * (primary_trace_clock) before any time was converted. A snapshot gives,
 * for every pair of its clocks, a point of an edge between them; a time
 * goes from its clock to the trace clock along the shortest chain of
 * edges (at most MAX_HOPS), each hop through the edge's last point at or
 * before the time (else its first):
 *
 *   MONOTONIC --(snapshots with both)--> BOOTTIME --> ... --> trace clock
 *
 * Values are kept in ns (a clock's unit_multiplier_ns applied); an
 * incremental clock's values are deltas added to its last one.
 */
#include <stdlib.h>
#include <string.h>

#include "tp_int.h"
#include "tp_pipe.h"
#include "tp_proto.h"

#define MAX_CLOCKS		1024	/* beyond: not tracked */
#define MAX_EDGES		4096
#define MAX_HOPS		4
#define MAX_PATHS		64	/* paths cached, by source clock */
#define MAX_SYNCED		64	/* remote machines with a clock sync */
#define SYNC_IDS		16	/* builtin clocks a sync aligns */
#define SYNC_ROUNDS		64
#define SYNC_ROUND_NS		(30ULL * 1000000000)

struct clock_pt {
	int64_t		 src, dst;	/* ns */
};

struct clock_edge {
	uint64_t	 src, dst;	/* clock keys */
	struct clock_pt	*pts;		/* sorted by src */
	size_t		 n, cap;
};

struct clock_attr {
	uint64_t	 key;		/* clock id, or seq << 32 | id */
	int		 incremental;
	int64_t		 mult;
	int64_t		 last;		/* incremental: running value */
};

struct clock_path {
	uint64_t	 src;
	int		 n;		/* hops; -1: none */
	size_t		 e[MAX_HOPS];
};

struct tp_clocks {
	struct clock_attr *attrs;
	size_t		 nattrs;
	struct clock_edge *edges;
	size_t		 nedges;
	struct clock_path paths[MAX_PATHS];
	size_t		 npaths;
	uint64_t	 trace_clock;
	int		 used;		/* a time was converted: the trace
					 * clock stays */
	int64_t		 nsnapshots;	/* clock_snapshot.snapshot_id */
	int		 snapshot_read;	/* any ClockSnapshot, valid or not */
	int		 bridged;	/* a time of a named clock was read */
	int		 named;		/* a snapshot named the trace clock */
	uint32_t	 synced[MAX_SYNCED];	/* machines a RemoteClockSync
						 * tied to the host */
	size_t		 nsynced;
	/* remote machines whose clocks were first used (machine_bridge) */
	uint32_t	 mbridged[MAX_SYNCED];
	size_t		 nmbridged;
	/*
	 * Upstream's conversion cache, kept only to count its misses the
	 * same way: 8 paths, each valid between two snapshots of its clock,
	 * emptied by every snapshot, a victim picked by minstd_rand.
	 */
	struct {
		uint64_t	 key;
		int64_t		 lo, hi;	/* [lo, hi), ns */
		int		 used;
	}		 ccache[8];
	uint64_t	 crand;
};

static struct tp_clocks *
clocks_get(struct tp *tp)
{
	if (tp->clocks == NULL &&
	    (tp->clocks = calloc(1, sizeof(*tp->clocks))) != NULL)
		tp->clocks->trace_clock = TP_CLOCK_BOOTTIME;
	return tp->clocks;
}

/* Whether machine is among the n of v. */
static int
machine_listed(const uint32_t *v, size_t n, uint32_t machine)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == machine)
			return 1;
	return 0;
}

static int
machine_synced(const struct tp_clocks *c, uint32_t machine)
{
	return c != NULL && machine_listed(c->synced, c->nsynced, machine);
}

/* A new snapshot's id; as upstream's, each snapshot empties the
 * conversion cache. */
static int64_t
snapshot_new(struct tp_clocks *c)
{
	memset(c->ccache, 0, sizeof(c->ccache));
	return c->nsnapshots++;
}

/* Upstream's trace time clock, as its logs and snapshots name it: the
 * file's own until a snapshot names one. */
static int64_t
trace_clock_id(const struct tp_clocks *c)
{
	return c->named ? (int64_t)(c->trace_clock & 0xffffffffu) :
	    TP_CLOCK_TRACE_FILE;
}

/* Clock ids 64 to 127 are a sequence's own. */
static inline int
clock_seq_scoped(uint32_t id)
{
	return id >= 64 && id < 128;
}

/*
 * Ids 64..127 are private to the sequence. A remote machine's clocks are
 * its own (tagged with the machine: a hash with the top bit set), but
 * for its BOOTTIME, which is the host's trace time until a RemoteClockSync
 * of that machine says how far apart they are (upstream's offset 0).
 */
static uint64_t
clock_key(struct tp *tp, uint32_t seq, uint32_t id)
{
	uint64_t key = clock_seq_scoped(id) ? (uint64_t)seq << 32 | id : id;

	if (tp->machine == 0 || (id == TP_CLOCK_BOOTTIME &&
	    !machine_synced(tp->clocks, tp->machine)))
		return key;
	return tp_hash_bytes(key * 0x9e3779b97f4a7c15ULL, &tp->machine,
	    sizeof(tp->machine)) | 1ULL << 63;
}

static struct clock_attr *
attr_find(struct tp_clocks *c, uint64_t key, int create)
{
	size_t i;
	void *n;

	for (i = 0; i < c->nattrs; i++)
		if (c->attrs[i].key == key)
			return &c->attrs[i];
	if (!create || c->nattrs >= MAX_CLOCKS)
		return NULL;
	if ((n = realloc(c->attrs, (c->nattrs + 1) * sizeof(*c->attrs))) ==
	    NULL)
		return NULL;
	c->attrs = n;
	memset(&c->attrs[c->nattrs], 0, sizeof(c->attrs[0]));
	c->attrs[c->nattrs].key = key;
	c->attrs[c->nattrs].mult = 1;
	return &c->attrs[c->nattrs++];
}

static struct clock_edge *
edge_find(struct tp_clocks *c, uint64_t src, uint64_t dst, int create)
{
	size_t i;
	void *n;

	for (i = 0; i < c->nedges; i++)
		if (c->edges[i].src == src && c->edges[i].dst == dst)
			return &c->edges[i];
	if (!create || c->nedges >= MAX_EDGES)
		return NULL;
	if ((n = realloc(c->edges, (c->nedges + 1) * sizeof(*c->edges))) ==
	    NULL)
		return NULL;
	c->edges = n;
	memset(&c->edges[c->nedges], 0, sizeof(c->edges[0]));
	c->edges[c->nedges].src = src;
	c->edges[c->nedges].dst = dst;
	c->npaths = 0;		/* the graph changed */
	return &c->edges[c->nedges++];
}

static void
edge_add(struct clock_edge *e, int64_t src, int64_t dst)
{
	size_t i;

	if (e->n == e->cap) {
		size_t ncap = e->cap ? e->cap * 2 : 8;
		void *n = realloc(e->pts, ncap * sizeof(*e->pts));

		if (n == NULL)
			return;
		e->pts = n;
		e->cap = ncap;
	}
	/* Snapshots come in order; keep the array sorted anyway. */
	for (i = e->n; i > 0 && e->pts[i - 1].src > src; i--)
		e->pts[i] = e->pts[i - 1];
	e->pts[i].src = src;
	e->pts[i].dst = dst;
	e->n++;
}

/* The point whose range holds v: the last at or before it, else the
 * first. */
static size_t
edge_pt_find(const struct clock_edge *e, int64_t v)
{
	size_t lo = 0, hi = e->n;

	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (e->pts[mid].src <= v)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Counts clock_sync_cache_miss as upstream's converter would: a hit is a
 * cached path of this clock whose range holds v; a miss looks the path up
 * and caches it (not when there is none).
 */
static void
cache_lookup(struct tp *tp, uint64_t key, const struct clock_edge *e,
    int64_t v)
{
	struct tp_clocks *c = tp->clocks;
	size_t i, k;

	for (i = 0; i < 8; i++)
		if (c->ccache[i].used && c->ccache[i].key == key &&
		    v >= c->ccache[i].lo && v < c->ccache[i].hi)
			return;
	tp_stat_inc(tp, ST_CLOCK_SYNC_CACHE_MISS, 1);
	if (e == NULL || e->n == 0)
		return;
	if (c->crand == 0)
		c->crand = 1;
	c->crand = c->crand * 48271 % 2147483647;
	i = edge_pt_find(e, v);
	k = c->crand % 8;
	c->ccache[k].key = key;
	c->ccache[k].lo = i == 0 ? INT64_MIN : e->pts[i].src;
	c->ccache[k].hi = i + 1 == e->n ? INT64_MAX : e->pts[i + 1].src;
	c->ccache[k].used = 1;
}

/* The shortest chain of edges from src to the trace clock (breadth
 * first), cached until the graph changes; NULL when there is none. */
static const struct clock_path *
path_find(struct tp_clocks *c, uint64_t src)
{
	struct clock_path q[64], *p;
	size_t head = 0, tail = 0, i;

	for (i = 0; i < c->npaths; i++)
		if (c->paths[i].src == src)
			return c->paths[i].n < 0 ? NULL : &c->paths[i];
	if (c->npaths == MAX_PATHS)
		c->npaths = 0;
	p = &c->paths[c->npaths++];
	p->src = src;
	p->n = -1;
	q[tail].src = src;		/* src: the chain's last clock */
	q[tail++].n = 0;
	while (head < tail) {
		struct clock_path cur = q[head++];

		if (cur.n == MAX_HOPS)
			continue;
		for (i = 0; i < c->nedges; i++) {
			const struct clock_edge *e = &c->edges[i];
			int seen = e->dst == src, h;

			if (e->src != cur.src || e->n == 0)
				continue;
			for (h = 0; h < cur.n && !seen; h++)
				seen = c->edges[cur.e[h]].src == e->dst;
			if (seen)
				continue;
			cur.e[cur.n] = i;
			if (e->dst == c->trace_clock) {
				memcpy(p->e, cur.e, sizeof(p->e));
				p->n = cur.n + 1;
				return p;
			}
			if (tail < sizeof(q) / sizeof(q[0])) {
				q[tail] = cur;
				q[tail].src = e->dst;
				q[tail++].n = cur.n + 1;
			}
		}
	}
	return NULL;
}

/* Upstream's names of the builtin clocks; NULL for the others. */
static const char *
clock_builtin_name(uint32_t id)
{
	static const char *const names[] = { NULL, "REALTIME",
	    "REALTIME_COARSE", "MONOTONIC", "MONOTONIC_COARSE",
	    "MONOTONIC_RAW", "BOOTTIME" };

	return id < sizeof(names) / sizeof(names[0]) ? names[id] : NULL;
}

static int convert(struct tp *, uint64_t key, int64_t ns, int64_t *out);
static int path_walk(const struct tp_clocks *, const struct clock_path *,
		    int64_t, int64_t *);

/* A point on the edge of every pair of the n clocks read together. */
static void
edges_add_snapshot(struct tp_clocks *c, const uint64_t *keys,
    const int64_t *ns, size_t n)
{
	struct clock_edge *e;
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (j != i && keys[j] != keys[i] &&
			    (e = edge_find(c, keys[i], keys[j], 1)) != NULL)
				edge_add(e, ns[i], ns[j]);
}

void
tp_clock_snapshot_untrusted(struct tp *tp, uint32_t seq, const uint8_t *buf,
    size_t len)
{
	struct tp_clocks *c = clocks_get(tp);
	struct pb it, ct;
	struct pb_field f, cf;
	struct {
		uint32_t id; uint64_t key; int64_t ts, ns; int inc;
		int64_t mult;
	} cl[64];
	uint64_t keys[64];
	int64_t ns[64];
	size_t n = 0, i;
	int has_boot = 0, has_file = 0, has_instant = 0;
	uint64_t primary = 0;
	int64_t instant = 0, id;

	if (c == NULL)
		return;
	c->snapshot_read = 1;
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 2 && f.wire == PB_VARINT)
			primary = f.u;
		if (f.id != 1 || f.wire != PB_LEN || n == 64)
			continue;
		memset(&cl[n], 0, sizeof(cl[n]));
		cl[n].mult = 1;
		pb_init(&ct, f.data, f.len);
		while (pb_next_untrusted(&ct, &cf) == 1) {
			if (cf.id == 1)
				cl[n].id = (uint32_t)cf.u;
			else if (cf.id == 2)
				cl[n].ts = (int64_t)cf.u;
			else if (cf.id == 3)
				cl[n].inc = cf.u != 0;
			else if (cf.id == 4 && cf.u > 0 && cf.u < (1ULL << 32))
				cl[n].mult = (int64_t)cf.u;
		}
		if (ct.err || __builtin_mul_overflow(cl[n].ts, cl[n].mult,
		    &cl[n].ns)) {
			it.err = 1;
			break;
		}
		cl[n].key = clock_key(tp, seq, cl[n].id);
		has_boot |= cl[n].id == TP_CLOCK_BOOTTIME;
		has_file |= cl[n].id == TP_CLOCK_TRACE_FILE;
		n++;
	}
	/* One of no clocks still names the trace clock and takes an id. */
	if (it.err) {
		tp_stat_inc(tp, ST_INVALID_CLOCK_SNAPSHOTS, 1);
		return;
	}
	/* The trace clock is set while no time has been converted, as
	 * upstream: the one named, else boot time for a snapshot with it. */
	if (!c->used && (primary != 0 || (has_boot && !has_file))) {
		c->trace_clock = primary != 0 ?
		    clock_key(tp, 0, (uint32_t)primary) : TP_CLOCK_BOOTTIME;
		c->named = 1;
		c->npaths = 0;
		tp_metadata_int(tp, "trace_time_clock_id",
		    (int64_t)c->trace_clock);
	}
	id = snapshot_new(c);
	for (i = 0; i < n; i++) {
		struct clock_attr *a = attr_find(c, cl[i].key, 1);

		if (a != NULL) {
			a->incremental = cl[i].inc;
			a->mult = cl[i].mult;
			a->last = cl[i].ts;
		}
		keys[i] = cl[i].key;
		ns[i] = cl[i].ns;
	}
	if (n > 0)
		edges_add_snapshot(c, keys, ns, n);
	/* The snapshot's instant in trace time, for its table. */
	for (i = 0; i < n && !has_instant; i++)
		if (cl[i].key == c->trace_clock) {
			instant = cl[i].ns;
			has_instant = 1;
		}
	for (i = 0; i < n && !has_instant; i++) {
		const struct clock_path *p = path_find(c, cl[i].key);

		has_instant = p != NULL && path_walk(c, p, cl[i].ns,
		    &instant) == 0;
	}
	for (i = 0; i < n && has_instant; i++)
		(void)tp_clock_snapshot_insert(tp, instant, cl[i].id,
		    clock_builtin_name(cl[i].id), cl[i].ns, id, tp->machine);
	/* Upstream converts each clock of the snapshot for its table. */
	for (i = 0; i < n; i++) {
		const struct clock_path *p;

		if (cl[i].key == c->trace_clock)
			continue;
		p = path_find(c, cl[i].key);
		cache_lookup(tp, cl[i].key, p != NULL ? &c->edges[p->e[0]] :
		    NULL, cl[i].inc ? 0 : cl[i].ns);
	}
}

/* ns v along path p's edges; -1 when it would overflow (hostile
 * values). */
static int
path_walk(const struct tp_clocks *c, const struct clock_path *p, int64_t v,
    int64_t *out)
{
	int h;

	for (h = 0; h < p->n; h++) {
		const struct clock_edge *e = &c->edges[p->e[h]];
		size_t lo = edge_pt_find(e, v);

		if (__builtin_sub_overflow(v, e->pts[lo].src, &v) ||
		    __builtin_add_overflow(v, e->pts[lo].dst, &v))
			return -1;
	}
	*out = v;
	return 0;
}

/* ns of clock key into the trace clock; -1 (counted) without a path. */
static int
convert(struct tp *tp, uint64_t key, int64_t v, int64_t *out)
{
	struct tp_clocks *c = tp->clocks;
	const struct clock_path *p = path_find(c, key);

	if (p == NULL) {
		cache_lookup(tp, key, NULL, v);
		return -1;
	}
	cache_lookup(tp, key, &c->edges[p->e[0]], v);
	/* An overflow is a counted drop. */
	if (path_walk(c, p, v, out) == -1) {
		tp_stat_inc(tp, ST_CLOCK_SYNC_FAILURE, 1);
		return -2;
	}
	return 0;
}

/*
 * Upstream bridges a proto file's clock (BOOTTIME) to trace time when the
 * first time of a named clock (a packet's own or default clock, an ftrace
 * event's, a Chrome event's MONOTONIC) is converted. Before any
 * ClockSnapshot, that bridge is a snapshot of its own, BOOTTIME and the
 * file's clock (TP_CLOCK_TRACE_FILE) both at 0, shown in clock_snapshot,
 * and costs its conversion cache two misses. Done the same way here, once.
 */
/*
 * A remote machine's first time of a named clock: upstream ties the
 * machine's BOOTTIME to trace time then, at 0 on both, unless a
 * RemoteClockSync did already; the tie is a snapshot of its own in
 * clock_snapshot. (Times convert the same either way: an unsynced
 * machine's BOOTTIME is the host's.)
 */
static void
machine_bridge(struct tp *tp, struct tp_clocks *c)
{
	int64_t g = trace_clock_id(c), id;

	if (machine_listed(c->mbridged, c->nmbridged, tp->machine) ||
	    c->nmbridged == MAX_SYNCED)
		return;
	c->mbridged[c->nmbridged++] = tp->machine;
	if (machine_synced(c, tp->machine))
		return;
	id = snapshot_new(c);
	(void)tp_clock_snapshot_insert(tp, 0, TP_CLOCK_BOOTTIME,
	    clock_builtin_name(TP_CLOCK_BOOTTIME), 0, id, tp->machine);
	(void)tp_clock_snapshot_insert(tp, 0, g,
	    clock_builtin_name((uint32_t)g), 0, id, 0);
}

void
tp_clock_first_use(struct tp *tp)
{
	struct tp_clocks *c = clocks_get(tp);
	int64_t id;

	if (c != NULL && tp->machine != 0) {
		tp_pipe_sync(tp);
		machine_bridge(tp, c);
		return;
	}
	/* Read by the tokenizer while the parse thread may set it. */
	if (c == NULL || __atomic_load_n(&c->bridged, __ATOMIC_RELAXED))
		return;
	/* The parse thread's queue first: it may bridge them itself. */
	tp_pipe_sync(tp);
	if (c->bridged)
		return;
	__atomic_store_n(&c->bridged, 1, __ATOMIC_RELAXED);
	if (c->snapshot_read)
		return;
	tp_stat_inc(tp, ST_CLOCK_SYNC_CACHE_MISS, 2);
	id = snapshot_new(c);
	(void)tp_clock_snapshot_insert(tp, 0, TP_CLOCK_BOOTTIME,
	    clock_builtin_name(TP_CLOCK_BOOTTIME), 0, id, tp->machine);
	(void)tp_clock_snapshot_insert(tp, 0, TP_CLOCK_TRACE_FILE, NULL, 0,
	    id, tp->machine);
}

/*
 * A time of clock id (of sequence seq when scoped to it) that could not
 * be converted, logged as upstream logs it: at the byte offset of its
 * packet when tokenized (TP_NULL: none), with the clocks and the time.
 */
static void
conversion_log(struct tp *tp, enum tp_stat st, uint32_t seq, uint32_t id,
    int64_t ts, int64_t byte_offset)
{
	struct tp_clocks *c = tp->clocks;
	int64_t set = tp_arg_set_new(tp);

	if (clock_seq_scoped(id))
		tp_arg_int_fixed(tp, set, "source_sequence_id", seq, "uint");
	tp_arg_int_fixed(tp, set, "source_clock_id", id, "int");
	tp_arg_int_fixed(tp, set, "source_timestamp", ts, "int");
	tp_arg_int_fixed(tp, set, "target_clock_id", trace_clock_id(c),
	    "int");
	tp_import_log(tp, st, TP_NULL, byte_offset, set);
}

int
tp_clock_to_trace(struct tp *tp, uint32_t seq, uint32_t id, int64_t ts,
    int64_t *out)
{
	return tp_clock_to_trace_at(tp, seq, id, ts, out, TP_NULL, 0);
}

/* A time was converted (set once: the tokenizer reads it while the
 * parse thread may set it, tp_clock_plain). */
static void
clocks_used(struct tp_clocks *c)
{
	if (!__atomic_load_n(&c->used, __ATOMIC_RELAXED))
		__atomic_store_n(&c->used, 1, __ATOMIC_RELAXED);
}

/* The key of clock id (0: none given: the trace clock, of the packet's
 * machine once a sync set that machine's clocks apart). */
static uint64_t
trace_key(struct tp *tp, const struct tp_clocks *c, uint32_t seq,
    uint32_t id)
{
	if (id != 0)
		return clock_key(tp, seq, id);
	if (machine_synced(c, tp->machine) && c->trace_clock < 64)
		return clock_key(tp, seq, (uint32_t)c->trace_clock);
	return c->trace_clock;
}

/*
 * Whether a time of clock id converts by writing nothing, for the
 * tokenizer beside the parse thread (tp_pipe.h): the trace clock's own,
 * once times were converted and named clocks bridged.
 */
int
tp_clock_settled(struct tp *tp)
{
	const struct tp_clocks *c = tp->clocks;

	return c != NULL && tp->machine == 0 &&
	    __atomic_load_n(&c->used, __ATOMIC_RELAXED) &&
	    __atomic_load_n(&c->bridged, __ATOMIC_RELAXED);
}

int
tp_clock_plain(struct tp *tp, uint32_t seq, uint32_t id)
{
	const struct tp_clocks *c = tp->clocks;

	if (c == NULL || tp->machine != 0 ||
	    !__atomic_load_n(&c->used, __ATOMIC_RELAXED) ||
	    (id != 0 && !__atomic_load_n(&c->bridged, __ATOMIC_RELAXED)))
		return 0;
	return trace_key(tp, c, seq, id) == c->trace_clock;
}

int
tp_clock_to_trace_at(struct tp *tp, uint32_t seq, uint32_t id, int64_t ts,
    int64_t *out, int64_t byte_offset, int quiet)
{
	struct tp_clocks *c = clocks_get(tp);
	struct clock_attr *a;
	uint64_t key;
	int64_t v = ts;
	int rc;

	if (c == NULL)
		return -1;
	if (id != 0)
		tp_clock_first_use(tp);
	clocks_used(c);
	if ((key = trace_key(tp, c, seq, id)) == c->trace_clock) {
		*out = ts;
		return 0;
	}
	if ((a = attr_find(c, key, 0)) == NULL) {
		cache_lookup(tp, key, NULL, ts);
		if (!quiet)
			conversion_log(tp,
			    ST_CLOCK_SYNC_FAILURE_UNKNOWN_SOURCE_CLOCK, seq, id,
			    ts, byte_offset);
		return -1;
	}
	if (a->incremental) {
		if (__builtin_add_overflow(a->last, ts, &v))
			goto range;
		a->last = v;
	}
	if (__builtin_mul_overflow(v, a->mult, &v))
		goto range;
	if ((rc = convert(tp, key, v, out)) == 0)
		return 0;
	if (rc == -1 && !quiet)
		tp_stat_inc(tp, ST_CLOCK_SYNC_FAILURE_NO_PATH, 1);
	return -1;
range:
	if (!quiet)
		tp_stat_inc(tp, ST_CLOCK_SYNC_FAILURE, 1);
	return -1;
}

int
tp_clock_monotonic_to_trace(struct tp *tp, int64_t ts, int64_t *out)
{
	struct tp_clocks *c = clocks_get(tp);

	if (c == NULL)
		return -1;
	tp_clock_first_use(tp);
	clocks_used(c);
	if (c->trace_clock == TP_CLOCK_MONOTONIC) {
		*out = ts;
		return 0;
	}
	if (attr_find(c, TP_CLOCK_MONOTONIC, 0) == NULL) {
		cache_lookup(tp, TP_CLOCK_MONOTONIC, NULL, ts);
		conversion_log(tp, ST_CLOCK_SYNC_FAILURE_UNKNOWN_SOURCE_CLOCK,
		    0, TP_CLOCK_MONOTONIC, ts, TP_NULL);
		return -1;
	}
	return convert(tp, TP_CLOCK_MONOTONIC, ts, out) == 0 ? 0 : -1;
}

void
tp_clock_free(struct tp *tp)
{
	struct tp_clocks *c = tp->clocks;
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; i < c->nedges; i++)
		free(c->edges[i].pts);
	free(c->edges);
	free(c->attrs);
	free(c);
	tp->clocks = NULL;
}

/* A ClockSnapshot's builtin clocks (ids below SYNC_IDS) into v; -1 when
 * it does not decode. */
static int
sync_clocks_read(const uint8_t *buf, size_t len, uint64_t *v)
{
	struct pb it, ct;
	struct pb_field f, cf;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		uint64_t id = 0, ts = 0;

		if (f.id != 1 || f.wire != PB_LEN)
			continue;
		pb_init(&ct, f.data, f.len);
		while (pb_next_untrusted(&ct, &cf) == 1)
			if (cf.id == 1 && cf.wire == PB_VARINT)
				id = cf.u;
			else if (cf.id == 2 && cf.wire == PB_VARINT)
				ts = cf.u;
		if (ct.err)
			return -1;
		if (id < SYNC_IDS)
			v[id] = ts;
	}
	return it.err ? -1 : 0;
}

/* ns of the host's builtin clock id in trace time: -1 without a path. */
static int
host_trace_time(struct tp *tp, uint32_t id, int64_t v, int64_t *out)
{
	struct tp_clocks *c = tp->clocks;
	const struct clock_path *p;
	uint64_t key = id;	/* the host's builtin clocks are their ids */

	if (key == c->trace_clock) {
		*out = v;
		return 0;
	}
	return (p = path_find(c, key)) != NULL ? path_walk(c, p, v, out) : -1;
}

/*
 * A RemoteClockSync of the packet's (remote) machine, as upstream reads
 * it: rounds of client then host snapshots; two rounds less than 30 s
 * apart give, per clock, two offset estimates (the client's round trip
 * and the host's), and the clock's offset is their mean over the
 * message. The machine's clock is then tied to the host's by one point
 * at the last host reading, and its clocks to each other by the client
 * snapshots.
 */
void
tp_clock_remote_sync_untrusted(struct tp *tp, const uint8_t *buf,
    size_t len)
{
	struct tp_clocks *c = clocks_get(tp);
	struct { uint64_t host[SYNC_IDS], client[SYNC_IDS]; } *r;
	struct pb it, sc;
	struct pb_field f, sf;
	size_t n = 0, i, k;
	int err = 0;

	if (c == NULL || (r = calloc(SYNC_ROUNDS, sizeof(*r))) == NULL)
		return;
	pb_init(&it, buf, len);
	while (!err && n < SYNC_ROUNDS && pb_next_untrusted(&it, &f) == 1) {
		if (f.id != 1 || f.wire != PB_LEN)
			continue;
		pb_init(&sc, f.data, f.len);
		while (!err && pb_next_untrusted(&sc, &sf) == 1)
			if (sf.wire == PB_LEN && (sf.id == 2 || sf.id == 3))
				err = sync_clocks_read(sf.data, sf.len,
				    sf.id == 2 ? r[n].client : r[n].host);
		err |= sc.err;
		n++;
	}
	if (err || it.err) {
		tp_stat_inc(tp, ST_INVALID_CLOCK_SNAPSHOTS, 1);
		free(r);
		return;
	}
	/*
	 * The host's own clocks need no sync; nor, as upstream has it, does
	 * a trace whose host sent no ClockSnapshot before (its times are
	 * all taken as trace time).
	 */
	if (tp->machine == 0 || !c->snapshot_read ||
	    (!machine_synced(c, tp->machine) &&
	    c->nsynced == MAX_SYNCED)) {
		free(r);
		return;
	}
	if (!machine_synced(c, tp->machine)) {
		c->synced[c->nsynced++] = tp->machine;
		c->npaths = 0;
	}
	/* Upstream stores each round's client clocks as a snapshot first. */
	for (i = 0; i < n; i++)
		(void)snapshot_new(c);
	for (k = 0; k < SYNC_IDS; k++) {
		__int128 sum = 0;
		int64_t cnt = 0, offset, anchor = 0, ts, id;
		struct clock_edge *e;

		for (i = 1; i < n; i++) {
			uint64_t t1h = r[i - 1].host[k];
			uint64_t t1c = r[i - 1].client[k];
			uint64_t t2h = r[i].host[k], t2c = r[i].client[k];

			if (r[i].client[TP_CLOCK_BOOTTIME] -
			    r[i - 1].client[TP_CLOCK_BOOTTIME] >= SYNC_ROUND_NS ||
			    !t1h || !t1c || !t2h || !t2c)
				continue;
			sum += (int64_t)(t1c + t2c) / 2 - (int64_t)t1h;
			sum += (int64_t)t2c - (int64_t)(t1h + t2h) / 2;
			cnt += 2;
		}
		for (i = 0; i < n; i++)
			if (r[i].host[k] != 0)
				anchor = (int64_t)r[i].host[k];
		if (cnt == 0 || (offset = (int64_t)(sum / cnt),
		    __builtin_add_overflow(anchor, offset, &offset)))
			continue;
		(void)attr_find(c, clock_key(tp, 0, (uint32_t)k), 1);
		if ((e = edge_find(c, clock_key(tp, 0, (uint32_t)k),
		    (uint64_t)k, 1)) != NULL)
			edge_add(e, offset, anchor);
		/* The tie is a snapshot of the clock on both machines, shown
		 * at the host reading's trace time when it has one. */
		c->npaths = 0;
		id = snapshot_new(c);
		if (host_trace_time(tp, (uint32_t)k, anchor, &ts) == 0) {
			(void)tp_clock_snapshot_insert(tp, ts, (int64_t)k,
			    clock_builtin_name((uint32_t)k), anchor, id, 0);
			(void)tp_clock_snapshot_insert(tp, ts, (int64_t)k,
			    clock_builtin_name((uint32_t)k), offset, id,
			    tp->machine);
		}
	}
	/* The machine's clocks to each other, as a snapshot would. */
	for (i = 0; i < n; i++) {
		uint64_t keys[SYNC_IDS];
		int64_t ns[SYNC_IDS];
		size_t m = 0;

		for (k = 0; k < SYNC_IDS; k++)
			if (r[i].client[k] != 0 &&
			    r[i].client[k] <= (uint64_t)INT64_MAX) {
				keys[m] = clock_key(tp, 0, (uint32_t)k);
				ns[m++] = (int64_t)r[i].client[k];
			}
		edges_add_snapshot(c, keys, ns, m);
	}
	free(r);
}
