/*
 * Perfetto proto traces: the stream splitter, per-sequence state and
 * tokenization (interning, clocks, descriptors: what must be seen in file
 * order), then the parsing of sorted packets.
 *
 *   bytes --split--> TracePacket --tokenize--> sorter --parse--> tables
 *
 * Interned data belongs to a generation of a sequence's incremental
 * state; a packet in the sorter holds a reference to the generation it
 * was written against, so a later SEQ_INCREMENTAL_STATE_CLEARED cannot
 * change what it resolves to.
 */
#include <stdlib.h>
#include <string.h>


#include "pbdec.h"
#include "tp_int.h"
#include "tp_pipe.h"
#include "tp_proto.h"
#include "tp_unpack.h"


#define SEQ_STATE_CLEARED	1
#define SEQ_NEEDS_STATE		2

struct tp_proto {
	/* splitter */
	uint8_t		*part;		/* a packet spanning chunks */
	size_t		 partlen, partcap, partneed;
	uint64_t	 skip;		/* bytes of an oversized packet */
	uint8_t		 hdr[16];	/* a field header spanning chunks */
	size_t		 hdrlen;

	struct tp_hash	 seqs;		/* sequence id -> struct tp_seq * */
	struct tp_hash	 descs_by_uuid;	/* uuid -> index in descs */
	struct tp_desc	*descs;
	size_t		 ndescs, capdescs;
	struct tp_hash	 uuid_tracks;	/* uuid -> track id */
	/* the descriptor uuid that last claimed a thread or process */
	struct tp_hash	 uuid_of_utid, uuid_of_upid;

	int		 ftrace_errs_seen;	/* of sequence 0 */
	int64_t		 last_ts;
	int		 depth;		/* compressed_packets nesting */
	/* Byte offsets, as upstream logs them: of the stream fed before
	 * this piece, of the packet being gathered, of the packet being
	 * tokenized (its payload; within its decompressed buffer when
	 * compressed). */
	uint64_t	 fed, part_off;
	int64_t		 pkt_off;
	int		 resolving;	/* parent chain being resolved */
	/* The sequence of the packet being parsed, -1 outside one: a track
	 * an event makes notes whether its sequence began in the trace. */
	int64_t		 parse_seq;	/* machine << 32 | id */
	/* Packets whose time no clock could convert yet: tried again at the
	 * end, when later snapshots may tell (upstream's deferral). */
	struct deferred	*deferred;
	size_t		 ndeferred, capdeferred;
};

/* A deferred packet: a copy, its sequence's state, where it came from. */
struct deferred {
	uint8_t		*buf;
	size_t		 len;
	struct tp_gen	*g;
	uint32_t	 machine;
	int64_t		 off;
};

static void tokenize_packet(struct tp *, const uint8_t *, size_t);
static void tokenize_timed(struct tp *, const uint8_t *, size_t,
		    const struct tp_pkt *, struct tp_seq *, struct tp_gen *,
		    int);

static struct tp_proto *
proto_get(struct tp *tp)
{
	if (tp->proto == NULL) {
		tp->proto = calloc(1, sizeof(*tp->proto));
		if (tp->proto == NULL)
			return NULL;
		tp_hash_init(&tp->proto->seqs);
		tp_hash_init(&tp->proto->descs_by_uuid);
		tp_hash_init(&tp->proto->uuid_of_utid);
		tp_hash_init(&tp->proto->uuid_of_upid);
		tp_hash_init(&tp->proto->uuid_tracks);
		tp->proto->parse_seq = -1;
	}
	return tp->proto;
}

/* Generations ---------------------------------------------------------- */

static struct tp_gen *
gen_new(const struct tp_gen *prev)
{
	struct tp_gen *g = calloc(1, sizeof(*g));

	if (g == NULL)
		return NULL;
	static uint64_t serials;	/* shared by all trace processors */

	g->refs = 1;
	g->serial = __atomic_add_fetch(&serials, 1, __ATOMIC_RELAXED);
	tp_hash_init(&g->interned);
	tp_hash_init(&g->counters);
	if (prev != NULL) {
		g->seq_key = prev->seq_key;
		/* The thread of a sequence is not incremental state. */
		g->pid = prev->pid;
		g->tid = prev->tid;
		g->has_thread = prev->has_thread;
	}
	return g;
}

void
tp_proto_unref(void *ref)
{
	struct tp_gen *g = ref;

	if (g == NULL || __atomic_sub_fetch(&g->refs, 1, __ATOMIC_ACQ_REL) > 0)
		return;
	tp_hash_free(&g->interned);
	tp_hash_free(&g->counters);
	free(g->arena);
	free(g->perf_defaults);
	free(g);
}

static void
gen_store(struct tp_gen *g, uint32_t field, uint64_t iid,
    const uint8_t *msg, size_t len)
{
	uint64_t key = ((uint64_t)field << 48) ^ iid;

	if (len > UINT32_MAX || g->alen > UINT32_MAX - len)
		return;
	if (g->alen + len > g->acap) {
		size_t ncap = g->acap ? g->acap * 2 : 4096;
		void *p;

		while (ncap < g->alen + len)
			ncap *= 2;
		if ((p = realloc(g->arena, ncap)) == NULL)
			return;
		g->arena = p;
		g->acap = ncap;
	}
	memcpy(g->arena + g->alen, msg, len);
	(void)tp_hash_put(&g->interned, key, (g->alen << 32) | len);
	g->alen += len;
}

int
tp_gen_lookup(const struct tp_gen *g, uint32_t field, uint64_t iid,
    const uint8_t **msg, size_t *len)
{
	uint64_t *v;

	if (g == NULL)
		return -1;
	v = tp_hash_get(&g->interned, ((uint64_t)field << 48) ^ iid);
	if (v == NULL)
		return -1;
	*msg = g->arena + (*v >> 32);
	*len = (size_t)(*v & 0xffffffff);
	return 0;
}

/* The string field `sfield` of interned message (field, iid). */
int
tp_gen_string(const struct tp_gen *g, uint32_t field, uint64_t iid,
    uint32_t sfield, const char **s, size_t *slen)
{
	const uint8_t *msg;
	size_t len;
	struct pb it;
	struct pb_field f;

	if (tp_gen_lookup(g, field, iid, &msg, &len) == -1)
		return -1;
	pb_init(&it, msg, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == sfield && f.wire == PB_LEN) {
			*s = (const char *)f.data;
			*slen = f.len;
			return 0;
		}
	}
	return -1;
}

static void
interned_data_untrusted(struct tp *tp, struct tp_gen *g, const uint8_t *buf,
    size_t len)
{
	struct pb it, sub;
	struct pb_field f, sf;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		uint64_t iid = 0;
		int has_iid = 0;

		if (f.wire != PB_LEN)
			continue;
		/* Every interned message carries its iid in field 1. */
		pb_init(&sub, f.data, f.len);
		while (pb_next_untrusted(&sub, &sf) == 1)
			if (sf.id == 1 && sf.wire == PB_VARINT) {
				iid = sf.u;
				has_iid = 1;
			}
		if (!has_iid || sub.err) {
			tp_stat_inc(tp, ST_INTERNED_DATA_TOKENIZER_ERRORS, 1);
			continue;
		}
		gen_store(g, f.id, iid, f.data, f.len);
	}
	if (it.err)
		tp_stat_inc(tp, ST_INTERNED_DATA_TOKENIZER_ERRORS, 1);
}

static void
defaults_untrusted(struct tp_gen *g, const uint8_t *buf, size_t len)
{
	struct pb it, te;
	struct pb_field f, tf;
	struct pb_packed pk;
	uint64_t v;

	g->has_defaults = 1;
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 58 && f.wire == PB_VARINT) {
			g->clock_id = (uint32_t)f.u;
			continue;
		}
		if (f.id == 12 && f.wire == PB_LEN) {	/* perf_sample_defaults */
			void *p = malloc(f.len ? f.len : 1);

			if (p != NULL) {
				memcpy(p, f.data, f.len);
				free(g->perf_defaults);
				g->perf_defaults = p;
				g->perf_defaults_len = f.len;
			}
			continue;
		}
		if (f.id != 11 || f.wire != PB_LEN)
			continue;
		pb_init(&te, f.data, f.len);
		while (pb_next_untrusted(&te, &tf) == 1) {
			if (tf.id == 11 && tf.wire == PB_VARINT) {
				g->track_uuid = tf.u;
				g->has_track_uuid = 1;
			} else if (tf.id == 31 || tf.id == 45) {
				uint64_t *arr = tf.id == 31 ? g->extra_uuids :
				    g->extra_double_uuids;
				size_t *n = tf.id == 31 ? &g->n_extra :
				    &g->n_extra_double;

				if (tf.wire == PB_VARINT) {
					if (*n < TP_MAX_EXTRA)
						arr[(*n)++] = tf.u;
				} else if (tf.wire == PB_LEN) {
					pb_packed_init(&pk, &tf);
					while (pb_packed_varint_untrusted(&pk, &v))
						if (*n < TP_MAX_EXTRA)
							arr[(*n)++] = v;
				}
			}
		}
	}
}

/* A sequence of the current machine: each machine numbers its own. */
static struct tp_seq *
seq_get(struct tp *tp, uint32_t id)
{
	struct tp_proto *p = tp->proto;
	uint64_t key = (uint64_t)tp->machine << 32 | id;
	uint64_t *v = tp_hash_get(&p->seqs, key);
	struct tp_seq *s;

	if (v != NULL)
		return (struct tp_seq *)(uintptr_t)*v;
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	s->id = id;
	if ((s->gen = gen_new(NULL)) == NULL) {
		free(s);
		return NULL;
	}
	s->gen->seq_key = key;
	/* Until the first clear, as upstream: what came before is unknown. */
	s->valid = 0;
	if (tp_hash_put(&p->seqs, key, (uint64_t)(uintptr_t)s) == -1) {
		tp_proto_unref(s->gen);
		free(s);
		return NULL;
	}
	return s;
}

/* A sequence of the current machine, NULL if none was seen. */
struct tp_seq *
tp_proto_seq_find(struct tp *tp, uint32_t id)
{
	uint64_t *v;

	if (tp->proto == NULL || (v = tp_hash_get(&tp->proto->seqs,
	    (uint64_t)tp->machine << 32 | id)) == NULL)
		return NULL;
	return (struct tp_seq *)(uintptr_t)*v;
}

/* Track descriptors ---------------------------------------------------- */

/*
 * Upstream's type of a named track below a thread, a process or none
 * (scope): siblings of one name are merged unless the descriptor asks
 * for none (sibling_merge_behavior NONE).
 */
static const char *
te_child_kind(const struct tp_desc *d, const char *scope)
{
	if (strcmp(scope, "thread") == 0)
		return d->no_merge ? "thread_track_event" :
		    "thread_merged_track_event";
	if (strcmp(scope, "process") == 0)
		return d->no_merge ? "process_track_event" :
		    "process_merged_track_event";
	return d->no_merge ? "global_track_event" :
	    "global_merged_track_event";
}

/*
 * Process and thread descriptors are read twice, as upstream reads them:
 * in file order for the track they describe (apply 0), and in time order
 * for the process and thread tables (apply 1), so that upids and utids are
 * numbered in the order upstream numbers them.
 */
static void
process_desc_untrusted(struct tp *tp, const uint8_t *buf, size_t len,
    struct tp_desc *d, int apply)
{
	struct pb it;
	struct pb_field f;
	const uint8_t *name = NULL;
	size_t namelen = 0;
	int64_t upid;

	/* As upstream's, the cmdline is not read: a process's name is its
	 * process_name, when not empty. */
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 1 && f.wire == PB_VARINT) {
			d->pid = (int32_t)f.u;
			d->has_process = 1;
		} else if (f.id == 6 && f.wire == PB_LEN) {
			name = f.data;
			namelen = f.len;
		}
	}
	if (!d->has_process || !apply)
		return;
	upid = tp_process_get(tp, d->pid);
	if (name != NULL && namelen > 0)
		tp_process_set_name(tp, upid, (const char *)name, namelen,
		    TP_PNAME_DESCRIPTOR);
}

/* sandboxed: the descriptor's chrome_thread says the tid is only unique
 * within its process (tp_chrome_tid_sandboxed_untrusted). */
static void
thread_desc_untrusted(struct tp *tp, const uint8_t *buf, size_t len,
    struct tp_desc *d, int apply, int sandboxed)
{
	struct pb it;
	struct pb_field f;
	const uint8_t *name = NULL;
	size_t namelen = 0;
	int has_pid = 0, has_tid = 0;
	int64_t utid;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 1 && f.wire == PB_VARINT) {
			d->pid = (int32_t)f.u;
			has_pid = 1;
		} else if (f.id == 2 && f.wire == PB_VARINT) {
			d->tid = (int64_t)f.u;
			has_tid = 1;
		} else if (f.id == 5 && f.wire == PB_LEN) {
			name = f.data;
			namelen = f.len;
		}
	}
	if (!has_tid)
		return;
	if (sandboxed)
		d->tid = tp_chrome_synthetic_tid(d->tid, d->pid);
	d->has_thread = 1;
	if (!apply)
		return;
	utid = has_pid ? tp_thread_in_process(tp, d->tid, d->pid) :
	    tp_thread_get(tp, d->tid);
	if (name != NULL)
		tp_thread_set_name(tp, utid, (const char *)name, namelen,
		    TP_NAME_TRACK);
}

/*
 * A thread track described on a sequence makes that thread the
 * sequence's own, as a ThreadDescriptor packet would (with its reference
 * times): upstream then knows which thread an event of the sequence on a
 * process or global track came from.
 */
static void
seq_thread_from_desc(struct tp_seq *s, const uint8_t *buf, size_t len)
{
	struct pb it, th;
	struct pb_field f, tf;
	int64_t pid = 0, tid = 0, ref = 0, ref_thread = 0, ref_instr = 0;
	int has_pid = 0, has_tid = 0;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id != 4 || f.wire != PB_LEN)
			continue;
		pb_init(&th, f.data, f.len);
		while (pb_next_untrusted(&th, &tf) == 1) {
			if (tf.wire != PB_VARINT)
				continue;
			if (tf.id == 1) {
				pid = (int32_t)tf.u;
				has_pid = 1;
			} else if (tf.id == 2) {
				tid = (int64_t)tf.u;
				has_tid = 1;
			} else if (tf.id == 6)
				ref = (int64_t)tf.u;
			else if (tf.id == 7)
				ref_thread = (int64_t)tf.u;
			else if (tf.id == 8)
				ref_instr = (int64_t)tf.u;
		}
	}
	if (!has_pid || !has_tid || it.err)
		return;
	if (tp_chrome_tid_sandboxed_untrusted(buf, len))
		tid = tp_chrome_synthetic_tid(tid, pid);
	s->gen->has_thread = 1;
	s->gen->pid = pid;
	s->gen->tid = tid;
	/* As upstream, bounded so the products cannot overflow. */
	s->ref_ts = ref > 0 && ref < INT64_MAX / 1000 ? ref * 1000 : 0;
	s->ref_thread_ts = ref_thread > 0 && ref_thread < INT64_MAX / 1000 ?
	    ref_thread * 1000 : 0;
	s->ref_instr = ref_instr;
}

/*
 * Did the sequence of the event being parsed begin in the trace (a packet
 * of it, however early or late, said first_packet_on_sequence)? As
 * upstream, it is the event's sequence that counts, not the descriptor's;
 * the default track (uuid 0) is no sequence's.
 */
static int
seq_began(struct tp *tp, uint64_t uuid)
{
	const struct tp_seq *s;
	uint64_t *v;

	if (uuid == 0 || tp->proto->parse_seq < 0)
		return 0;
	v = tp_hash_get(&tp->proto->seqs, (uint64_t)tp->proto->parse_seq);
	s = v != NULL ? (const struct tp_seq *)(uintptr_t)*v : NULL;
	return s != NULL && s->first_seen;
}

/*
 * What upstream notes of a descriptor's track in its source args: where
 * it came from, its uuid (as trace_id), whether it is its process's own
 * track, and how the UI should order its children and itself.
 */
static void
desc_track_args(struct tp *tp, const struct tp_desc *d, int64_t id,
    int is_root)
{
	static const char *const orderings[] = { NULL, "lexicographic",
	    "chronological", "explicit" };
	int64_t set;

	if (tp->tracks[id].source_arg_set_id != TP_NULL)
		return;
	set = tp_track_source_set(tp, id);
	tp_arg_str(tp, set, "source", "source", "descriptor", 10, NULL);
	tp_arg_int(tp, set, "trace_id", "trace_id", (int64_t)d->uuid, "int");
	tp_arg_int(tp, set, "is_root_in_scope", "is_root_in_scope", is_root,
	    "bool");
	if (d->is_counter && d->category != NULL)
		tp_arg_str(tp, set, "category", "category", d->category,
		    strlen(d->category), NULL);
	if (d->is_counter && (d->builtin == 1 || d->builtin == 2))
		tp_arg_cstr_fixed(tp, set, "builtin_counter_type",
		    d->builtin == 1 ? "thread_time" :
		    "thread_instruction_count");
	if (d->is_counter && d->y_axis != NULL)
		tp_arg_cstr_fixed(tp, set, "y_axis_share_key", d->y_axis);
	if (seq_began(tp, d->uuid))
		tp_arg_int(tp, set, "has_first_packet_on_sequence",
		    "has_first_packet_on_sequence", 1, "bool");
	if (d->child_ordering != 0)
		tp_arg_str(tp, set, "child_ordering", "child_ordering",
		    orderings[d->child_ordering],
		    strlen(orderings[d->child_ordering]), NULL);
	if (d->has_rank)
		tp_arg_int(tp, set, "sibling_order_rank", "sibling_order_rank",
		    d->rank, "int");
	if (d->desc != NULL)
		tp_arg_str(tp, set, "description", "description", d->desc,
		    strlen(d->desc), NULL);
}

static struct tp_desc *desc_find(struct tp_proto *, uint64_t);

/*
 * A thread's or process's descriptor claims it for its uuid. Another uuid
 * for the same tid (pid) means the id was reused: as upstream, a new
 * thread (process) starts, and the descriptor's names go to it.
 */
static void
desc_claim_ids(struct tp *tp, uint64_t uuid, const struct tp_desc *d)
{
	struct tp_proto *p = tp->proto;
	uint64_t *prev;
	int64_t utid, upid;

	if (d->has_thread) {
		utid = d->pid != 0 ? tp_thread_in_process(tp, d->tid, d->pid) :
		    tp_thread_get(tp, d->tid);
		prev = tp_hash_get(&p->uuid_of_utid, (uint64_t)utid);
		if (prev != NULL && *prev != uuid) {
			upid = tp->threads[utid].upid;
			utid = tp_thread_new(tp, d->tid, TP_NULL);
			tp->threads[utid].upid = upid;
		}
		(void)tp_hash_put(&p->uuid_of_utid, (uint64_t)utid, uuid);
	} else if (d->has_process) {
		upid = tp_process_get(tp, d->pid);
		prev = tp_hash_get(&p->uuid_of_upid, (uint64_t)upid);
		if (prev != NULL && *prev != uuid) {
			upid = tp_process_new(tp, d->pid, TP_NULL, TP_NULL);
			(void)tp_thread_with_parent(tp, d->pid, upid);
		}
		(void)tp_hash_put(&p->uuid_of_upid, (uint64_t)upid, uuid);
	}
}

static void
desc_claim(struct tp *tp, const uint8_t *buf, size_t len)
{
	struct tp_desc d;
	struct pb it;
	struct pb_field f;
	uint64_t uuid = 0;

	if (tp->proto == NULL)
		return;
	memset(&d, 0, sizeof(d));
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 1 && f.wire == PB_VARINT)
			uuid = f.u;
		else if (f.id == 3 && f.wire == PB_LEN)
			process_desc_untrusted(tp, f.data, f.len, &d, 0);
		else if (f.id == 4 && f.wire == PB_LEN)
			thread_desc_untrusted(tp, f.data, f.len, &d, 0,
			    tp_chrome_tid_sandboxed_untrusted(buf, len));
	}
	desc_claim_ids(tp, uuid, &d);
}

/*
 * A track descriptor's process and thread, in time order; its
 * sibling_order_rank is their sort index when the root descriptor asks
 * for that ordering (as upstream).
 */
static void
desc_apply(struct tp *tp, const uint8_t *buf, size_t len)
{
	struct tp_desc d, *root;
	struct pb it;
	struct pb_field f;
	struct pb_field chrome[2];	/* chrome_process, chrome_thread */
	int has_rank = 0;
	int64_t rank = 0;

	desc_claim(tp, buf, len);
	memset(&d, 0, sizeof(d));
	memset(chrome, 0, sizeof(chrome));
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 3 && f.wire == PB_LEN)
			process_desc_untrusted(tp, f.data, f.len, &d, 1);
		else if (f.id == 4 && f.wire == PB_LEN)
			thread_desc_untrusted(tp, f.data, f.len, &d, 1,
			    tp_chrome_tid_sandboxed_untrusted(buf, len));
		else if (f.id == 12 && f.wire == PB_VARINT) {
			rank = (int32_t)f.u;
			has_rank = 1;
		} else if ((f.id == 6 || f.id == 7) && f.wire == PB_LEN)
			chrome[f.id - 6] = f;
	}
	/* Chrome's own descriptor of the thread, else of the process. */
	if (d.has_thread && chrome[1].id != 0)
		tp_chrome_thread_untrusted(tp, tp_thread_in_process(tp, d.tid,
		    d.pid), chrome[1].data, chrome[1].len);
	else if (!d.has_thread && d.has_process && chrome[0].id != 0)
		tp_proto_chrome_process(tp, tp_process_get(tp, d.pid),
		    chrome[0].data, chrome[0].len);
	if (!has_rank || tp->proto == NULL ||
	    (root = desc_find(tp->proto, 0)) == NULL)
		return;
	if (d.has_thread && root->threads_explicit)
		tp_thread_set_sort_index(tp, tp_thread_in_process(tp, d.tid,
		    d.pid), rank, TP_SORT_DESCRIPTOR);
	else if (!d.has_thread && d.has_process && root->procs_explicit)
		tp_process_set_sort_index(tp, tp_process_get(tp, d.pid), rank,
		    TP_SORT_DESCRIPTOR);
}

static void
desc_category_add(struct tp_desc *d, const uint8_t *s, size_t n)
{
	size_t l = d->category ? strlen(d->category) : 0;
	char *c;

	if (n > 4096 || (c = realloc(d->category, l + n + 2)) == NULL)
		return;
	if (l > 0)
		c[l++] = ',';
	memcpy(c + l, s, n);
	c[l + n] = '\0';
	d->category = c;
}

/* A counter's unit as upstream picks it: the built-in counter's, else the
 * enum's, else the free-form unit_name. */
static void
counter_desc_untrusted(const uint8_t *buf, size_t len, struct tp_desc *d)
{
	static const char *const units[] = { NULL, "ns", "count", "bytes" };
	static const char *const builtin_units[] = { NULL, "ns", "count" };
	struct pb it;
	struct pb_field f;
	uint64_t unit = 0;
	const uint8_t *name = NULL;
	size_t namelen = 0;

	d->is_counter = 1;
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		switch (f.id) {
		case 1:
			d->builtin = (int)f.u;
			break;
		case 3:
			unit = f.u;
			break;
		case 6:
			if (f.wire == PB_LEN) {
				name = f.data;
				namelen = f.len;
			}
			break;
		case 4:
			d->mult = (int64_t)f.u;
			break;
		case 5:
			d->incremental = f.u != 0;
			break;
		case 2:		/* categories, joined by ',' as upstream */
			if (f.wire == PB_LEN)
				desc_category_add(d, f.data, f.len);
			break;
		case 7:
			if (f.wire == PB_LEN)
				tp_setstr(&d->y_axis, (const char *)f.data,
				    f.len);
			break;
		}
	}
	free(d->unit);
	d->unit = NULL;
	if (d->builtin == 1 || d->builtin == 2)
		d->unit = strdup(builtin_units[d->builtin]);
	else if (unit > 0 && unit < 4)
		d->unit = strdup(units[unit]);
	else if (name != NULL)
		d->unit = tp_strndup((const char *)name, namelen);
}

static void
track_descriptor_untrusted(struct tp *tp, const uint8_t *buf, size_t len)
{
	struct tp_proto *p = tp->proto;
	struct tp_desc nd, *d;
	struct pb it;
	struct pb_field f;
	uint64_t *idx;

	memset(&nd, 0, sizeof(nd));
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		switch (f.id) {
		case 1:
			nd.uuid = f.u;
			nd.has_uuid = 1;
			break;
		case 5:
			nd.parent = f.u;
			nd.has_parent = 1;
			break;
		case 2:
		case 10:
		case 13:
			if (f.wire == PB_LEN)
				tp_setstr(&nd.name, (const char *)f.data, f.len);
			break;
		case 14:
			if (f.wire == PB_LEN)
				tp_setstr(&nd.desc, (const char *)f.data, f.len);
			break;
		case 3:
			if (f.wire == PB_LEN)
				process_desc_untrusted(tp, f.data, f.len, &nd,
				    0);
			break;
		case 4:
			if (f.wire == PB_LEN)
				thread_desc_untrusted(tp, f.data, f.len, &nd,
				    0, tp_chrome_tid_sandboxed_untrusted(buf,
				    len));
			break;
		case 8:
			if (f.wire == PB_LEN)
				counter_desc_untrusted(f.data, f.len, &nd);
			break;
		case 15:	/* sibling_merge_behavior: 2 NONE, 3 BY_KEY */
			nd.no_merge = f.wire == PB_VARINT && f.u == 2;
			nd.merge_by_key = f.wire == PB_VARINT && f.u == 3;
			break;
		case 16:	/* sibling_merge_key */
			if (f.wire == PB_LEN)
				tp_setstr(&nd.merge_key, (const char *)f.data,
				    f.len);
			break;
		case 17: {	/* sibling_merge_key_int */
			char k[48];

			snprintf(k, sizeof(k), "sibling_merge_key_int:%llu",
			    (unsigned long long)f.u);
			tp_setstr(&nd.merge_key, k, strlen(k));
			break;
		}
		case 9:
			nd.separate = f.wire == PB_VARINT && f.u != 0;
			break;
		case 11:
			if (f.wire == PB_VARINT && f.u >= 1 && f.u <= 3)
				nd.child_ordering = (int)f.u;
			break;
		case 12:
			if (f.wire == PB_VARINT) {
				nd.rank = (int32_t)f.u;
				nd.has_rank = 1;
			}
			break;
		case 19:	/* process_ordering: 1 is EXPLICIT */
			nd.procs_explicit = f.wire == PB_VARINT && f.u == 1;
			break;
		case 20:	/* thread_ordering */
			nd.threads_explicit = f.wire == PB_VARINT && f.u == 1;
			break;
		}
	}
	if (!nd.has_uuid || it.err) {
		tp_stat_inc(tp, ST_TRACK_EVENT_TOKENIZER_ERRORS, 1);
		goto out;
	}
	if ((idx = tp_hash_get(&p->descs_by_uuid, nd.uuid)) != NULL) {
		/*
		 * Re-emitted descriptor: as upstream, a name is taken only
		 * when there was none, or when the track is not merged with
		 * its siblings (it then also renames a track already made).
		 */
		uint64_t *tr;

		d = &p->descs[*idx];
		if (nd.name != NULL && (d->name == NULL || nd.no_merge))
			tp_setstr(&d->name, nd.name, strlen(nd.name));
		tr = tp_hash_get(&p->uuid_tracks, nd.uuid);
		if (nd.name != NULL && nd.no_merge && tr != NULL &&
		    *tr != (uint64_t)-1 && !d->has_thread && !(d->has_process &&
		    !d->is_counter))
			tp_setstr(&tp->tracks[*tr].name, nd.name,
			    strlen(nd.name));
		goto out;
	}
	if (p->ndescs == p->capdescs) {
		size_t ncap = p->capdescs ? p->capdescs * 2 : 64;
		void *n = realloc(p->descs, ncap * sizeof(*p->descs));

		if (n == NULL)
			goto out;
		p->descs = n;
		p->capdescs = ncap;
	}
	p->descs[p->ndescs] = nd;
	(void)tp_hash_put(&p->descs_by_uuid, nd.uuid, p->ndescs);
	p->ndescs++;
	return;
out:
	free(nd.name);
	free(nd.desc);
	free(nd.unit);
	free(nd.category);
	free(nd.y_axis);
	free(nd.merge_key);
}

static struct tp_desc *
desc_find(struct tp_proto *p, uint64_t uuid)
{
	uint64_t *idx = tp_hash_get(&p->descs_by_uuid, uuid);

	return idx ? &p->descs[*idx] : NULL;
}

/* Is the descriptor uuid a thread's or a process's own track? */
static int
desc_is_root(struct tp_proto *p, uint64_t uuid)
{
	const struct tp_desc *a = desc_find(p, uuid);

	return a != NULL && (a->has_thread || a->has_process);
}

/*
 * The pool's track for an event of step on merged descriptor d; a track
 * it makes gets d's parent, description and args, as upstream's factory
 * gives them.
 */
static int64_t
merged_track(struct tp *tp, struct tp_desc *d, int64_t parent, int step)
{
	struct tp_pool_key k;
	int64_t id;

	memset(&k, 0, sizeof(k));
	k.kind = te_child_kind(d, d->m_utid != TP_NULL ? "thread" :
	    d->m_upid != TP_NULL ? "process" : "global");
	/* A process's track is named as the translation table says, and
	 * merged by that name, as upstream. */
	k.name = d->m_upid != TP_NULL ?
	    tp_translate_process_track_name(tp, d->mname) : d->mname;
	k.scope = d->merge_by_key ? (d->merge_key != NULL ? d->merge_key :
	    "") : k.name;
	k.upid = d->m_upid;
	k.merged = 1;
	k.utid = d->m_utid;
	k.parent_uuid = d->has_parent ? (int64_t)d->parent : 0;
	k.merge_type = d->merge_by_key ? 2 : 0;
	if ((id = tp_track_pool_take(tp, &k, d->uuid, step)) < 0 ||
	    tp->tracks[id].source_arg_set_id != TP_NULL)
		return id;
	if (parent != TP_NULL && parent != id &&
	    !desc_is_root(tp->proto, d->parent))
		tp->tracks[id].parent_id = parent;
	if (d->desc != NULL && tp->tracks[id].desc == NULL)
		tp->tracks[id].desc = strdup(d->desc);
	desc_track_args(tp, d, id, d->uuid == 0);
	return id;
}

/* The thread of a thread's descriptor (made if new). */
static int64_t
desc_thread(struct tp *tp, const struct tp_desc *a)
{
	int64_t utid = tp_thread_in_process(tp, a->tid, a->pid);

	return a->pid == 0 && a->tid != 0 ? tp_thread_get(tp, a->tid) : utid;
}

int64_t
tp_proto_track_thread(struct tp *tp, uint64_t uuid)
{
	struct tp_proto *p = tp->proto;
	const struct tp_desc *d = desc_find(p, uuid);
	const uint64_t *tr = tp_hash_get(&p->uuid_tracks, uuid);

	if (tr != NULL && (int64_t)*tr >= 0)
		return tp->tracks[*tr].utid != TP_NULL ?
		    tp->tracks[*tr].utid : -1;
	if (d == NULL || !d->has_thread || d->separate || d->merged)
		return -1;
	/* As its track's making would: the claim first (a reused tid). */
	desc_claim_ids(tp, uuid, d);
	return desc_thread(tp, d);
}

/* The track of a uuid, made on first use; -1 if none can be made. */
int64_t
tp_proto_track(struct tp *tp, uint64_t uuid, struct tp_desc **dout,
    const char *ev_name)
{
	return tp_proto_track_step(tp, uuid, dout, ev_name, TP_POOL_FIRST);
}

int64_t
tp_proto_track_step(struct tp *tp, uint64_t uuid, struct tp_desc **dout,
    const char *ev_name, int step)
{
	struct tp_proto *p = tp->proto;
	struct tp_desc *d, *a;
	uint64_t *tr;
	int64_t id, parent = TP_NULL, utid = TP_NULL, upid = TP_NULL;
	int hops, shared = 0;
	const char *name;

	d = desc_find(p, uuid);
	tr = tp_hash_get(&p->uuid_tracks, uuid);
	if (d == NULL && tr != NULL)
		return (int64_t)*tr;
	if (d != NULL && d->merged) {
		if (dout != NULL)
			*dout = d;
		return merged_track(tp, d, d->has_parent ? tp_proto_track(tp,
		    d->parent, NULL, NULL) : TP_NULL, step);
	}
	if (d == NULL) {
		/*
		 * A uuid no descriptor declares: a global track merged by
		 * name, as upstream's: for uuid 0 its default track, "Default
		 * Track"; else named after its first event.
		 */
		struct tp_desc nd = { .uuid = uuid, .merged = 1,
		    .m_utid = TP_NULL, .m_upid = TP_NULL };

		nd.mname = uuid == 0 ? (char *)"Default Track" :
		    (char *)ev_name;
		if ((id = merged_track(tp, &nd, TP_NULL, step)) >= 0)
			(void)tp_hash_put(&p->uuid_tracks, uuid, (uint64_t)id);
		return id;
	}
	if (dout != NULL)
		*dout = d;
	if (tr != NULL)
		return (int64_t)*tr;
	/* Mark before recursing so a parent loop ends here; a hostile
	 * chain of parents ends at a fixed depth. */
	(void)tp_hash_put(&p->uuid_tracks, uuid, (uint64_t)-1);
	if (d->has_parent && d->parent != uuid) {
		int64_t pt = -1;

		if (p->resolving < 64) {
			p->resolving++;
			pt = tp_proto_track(tp, d->parent, NULL, NULL);
			p->resolving--;
		} else {
			tp_stat_inc(tp, ST_TRACK_EVENT_TOKENIZER_ERRORS, 1);
		}
		if (pt >= 0)
			parent = pt;
	}
	/* Scope: its own thread or process, else its parent track's (as
	 * that was resolved: a pid reused since does not move it), else the
	 * nearest up the hierarchy. */
	if (!d->has_thread && !d->has_process && parent != TP_NULL) {
		utid = tp->tracks[parent].utid;
		upid = utid != TP_NULL ? TP_NULL : tp->tracks[parent].upid;
	}
	/* An event may resolve its track before the descriptor is applied
	 * (at one time): the claim of a reused tid or pid is made here, as
	 * upstream makes it when it resolves the track. */
	if (d->has_thread || d->has_process)
		desc_claim_ids(tp, uuid, d);
	for (a = d, hops = 0; a != NULL && hops < 64 && utid == TP_NULL &&
	    upid == TP_NULL; hops++) {
		if (a->has_thread) {
			utid = desc_thread(tp, a);
			break;
		}
		if (a->has_process) {
			upid = tp_process_get(tp, a->pid);
			break;
		}
		if (!a->has_parent || a->parent == a->uuid)
			break;
		a = desc_find(p, a->parent);
	}
	if (d->is_counter) {
		enum tp_track_type t = utid != TP_NULL ? TT_THREAD_COUNTER :
		    upid != TP_NULL ? TT_PROCESS_COUNTER : TT_COUNTER;
		name = d->name;
		if (name == NULL && d->builtin == 1)
			name = "thread_time";
		else if (name == NULL && d->builtin == 2)
			name = "thread_instruction_count";
		if (utid == TP_NULL)
			name = tp_translate_process_track_name(tp, name);
		id = tp_track_new(tp, t, name, utid != TP_NULL ? utid : upid);
		if (id >= 0) {
			struct tp_track *trk = &tp->tracks[id];

			if (d->unit)
				trk->unit = strdup(d->unit);
			trk->incremental = d->incremental;
			trk->multiplier = d->mult > 0 ? d->mult : 1;
		}
	} else if (d->has_thread && !d->separate) {
		/* A thread's own descriptor is its thread track, named or
		 * not, unless it asks to stay apart, as upstream. */
		id = tp_thread_track(tp, utid);
		shared = 1;
	} else if (d->has_process && d->name == NULL) {
		id = tp_track_intern(tp, TT_PROCESS, NULL, upid);
		shared = 1;
	} else if (!d->has_thread && !d->has_process && !d->no_merge) {
		/* Siblings of one name (or merge key) share tracks, as
		 * upstream merges them; a child of no name of its own takes
		 * its first event's. */
		name = d->name != NULL ? d->name : ev_name;
		/* No name at all merges with the unnamed, as upstream. */
		if (name != NULL && (d->mname = strdup(name)) == NULL) {
			(void)tp_hash_del(&p->uuid_tracks, uuid);
			return -1;
		}
		d->m_utid = utid;
		d->m_upid = utid != TP_NULL ? TP_NULL : upid;
		d->merged = 1;
		id = merged_track(tp, d, parent, step);
		if (id >= 0)
			(void)tp_hash_put(&p->uuid_tracks, uuid, (uint64_t)id);
		else
			(void)tp_hash_del(&p->uuid_tracks, uuid);
		return id;
	} else if (utid != TP_NULL) {
		/* A child track of no name of its own: its first event's. */
		name = d->name != NULL || d->has_thread ? d->name : ev_name;
		id = tp_track_new(tp, TT_THREAD, name, utid);
		tp_track_kind(tp, id, d->has_thread ? "thread_track_event" :
		    te_child_kind(d, "thread"));
	} else if (upid != TP_NULL) {
		name = d->name != NULL || d->has_process ? d->name : ev_name;
		id = tp_track_new(tp, TT_PROCESS,
		    tp_translate_process_track_name(tp, name), upid);
		tp_track_kind(tp, id, d->has_process ? "process_track_event" :
		    te_child_kind(d, "process"));
	} else {
		id = tp_track_new(tp, TT_TRACK, d->name != NULL ? d->name :
		    ev_name, TP_NULL);
		tp_track_kind(tp, id, te_child_kind(d, "global"));
	}
	if (id < 0) {
		(void)tp_hash_del(&p->uuid_tracks, uuid);
		return -1;
	}
	/*
	 * Shared thread/process tracks have no single parent; nor, as
	 * upstream, has a track whose parent is a thread's or a process's
	 * own (root) track: its thread or process says where it belongs.
	 */
	if (!shared && parent != TP_NULL && parent != id &&
	    !desc_is_root(p, d->parent))
		tp->tracks[id].parent_id = parent;
	if (d->desc != NULL && tp->tracks[id].desc == NULL)
		tp->tracks[id].desc = strdup(d->desc);
	/* A thread's own track is its thread_execution track: no args.
	 * Any other has its uuid among its dimensions, as upstream's. */
	if (!(shared && d->has_thread)) {
		if (tp->tracks[id].source_arg_set_id == TP_NULL)
			tp_arg_int(tp, tp_track_dim_set(tp, id), "track_uuid",
			    "track_uuid", (int64_t)uuid, "int");
		/* A thread's or process's own descriptor is its scope's
		 * root, shared or apart. */
		desc_track_args(tp, d, id, d->has_thread || d->has_process);
	}
	(void)tp_hash_put(&p->uuid_tracks, uuid, (uint64_t)id);
	return id;
}

/* Stream splitting ----------------------------------------------------- */

/*
 * Reads the fields of a packet tokenization needs. Everything else is
 * left for the sorted parse.
 */
int
tp_proto_packet_scan(const uint8_t *buf, size_t len, struct tp_pkt *pk)
{
	struct pb it;
	struct pb_field f;

	memset(pk, 0, sizeof(*pk));
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		switch (f.id) {
		case 8:
			pk->ts = (int64_t)f.u;
			pk->has_ts = 1;
			break;
		case 58:
			pk->clock_id = (uint32_t)f.u;
			pk->has_clock = 1;
			break;
		case 10:
			pk->seq = (uint32_t)f.u;
			break;
		case 13:
			pk->flags = (uint32_t)f.u;
			break;
		case 41:
			if (f.u)
				pk->flags |= SEQ_STATE_CLEARED;
			break;
		case 42:
			pk->dropped = (uint32_t)f.u;
			break;
		case 87:
			pk->first_on_seq = f.u != 0;
			break;
		case 98:
			pk->machine = (uint32_t)f.u;
			pk->has_machine = 1;
			break;
		case 12:
			pk->interned = f;
			break;
		case 59:
			pk->defaults = f;
			break;
		default:
			if (f.wire == PB_LEN && pk->data.id == 0 &&
			    f.id != 3 && f.id != 79)
				pk->data = f;
			break;
		}
	}
	return it.err ? -1 : 0;
}

/* The payload of compressed packets is a Trace: a run of field-1 packets. */
static void
tokenize_decompressed(struct tp *tp, const uint8_t *out, size_t n)
{
	struct pb it;
	struct pb_field f;

	if (n == 0)
		return;
	tp->proto->depth++;
	pb_init(&it, out, n);
	while (pb_next_untrusted(&it, &f) == 1)
		if (f.id == 1 && f.wire == PB_LEN) {
			tp->proto->pkt_off = (int64_t)(f.data - out);
			tokenize_packet(tp, f.data, f.len);
		}
	if (it.err)
		tp_stat_inc(tp, ST_PROTO_DECODE_ERRORS, 1);
	tp->proto->depth--;
}

/*
 * A compressed packet's run of packets (tp_unpack.c): decompressed ahead
 * on the second thread when it has this one (a top-level packet of a
 * file), here otherwise; off is its bytes' offset in the stream.
 */
static void
unpack_packets(struct tp *tp, uint32_t field, const uint8_t *buf,
    size_t len, uint64_t off)
{
	uint8_t *out = NULL;
	size_t n = 0;
	int rc;

	if (tp->proto->depth > 0 || !tp_unpack_ahead_take(tp, off, field,
	    len, &out, &n, &rc))
		rc = tp_unpack(field, buf, len, &out, &n);
	if (rc == -1)
		tp_stat_inc(tp, ST_PROTO_DECODE_ERRORS, 1);
	tokenize_decompressed(tp, out, n);
	free(out);
}

/* Each data source slow to start, as "producer data_source". */
static void
slow_data_sources_untrusted(struct tp *tp, const uint8_t *buf, size_t len)
{
	struct pb it, dit;
	struct pb_field f, d;
	char *prod, *name, *s;
	size_t n;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id != 1 || f.wire != PB_LEN)
			continue;
		prod = name = NULL;
		pb_init(&dit, f.data, f.len);
		while (pb_next_untrusted(&dit, &d) == 1)
			if (d.wire == PB_LEN && (d.id == 1 || d.id == 2))
				tp_setstr(d.id == 1 ? &prod : &name,
				    (const char *)d.data, d.len);
		n = (prod != NULL ? strlen(prod) : 0) +
		    (name != NULL ? strlen(name) : 0) + 2;
		if ((s = malloc(n)) != NULL) {
			snprintf(s, n, "%s %s", prod != NULL ? prod : "",
			    name != NULL ? name : "");
			tp_metadata_str_multi(tp, "slow_start_data_source", s);
			free(s);
		}
		free(prod);
		free(name);
	}
}

/*
 * A TracingServiceEvent, in arrival order: its flush and read marks tell
 * the sorter what may leave (tp_sorter.c); the session's milestones go in
 * the metadata table at the packet's time, as upstream puts them.
 */
static void
service_event_untrusted(struct tp *tp, int64_t ts, const uint8_t *buf,
    size_t len)
{
	struct pb it;
	struct pb_field f;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 7 && f.wire == PB_LEN)	/* slow_starting_... */
			slow_data_sources_untrusted(tp, f.data, f.len);
		if (f.wire != PB_VARINT || f.u == 0)
			continue;
		switch (f.id) {
		case 2:		/* tracing_started */
			tp_metadata_int(tp, "tracing_started_ns", ts);
			break;
		case 1:		/* all_data_sources_started */
			tp_metadata_int(tp, "all_data_source_started_ns", ts);
			break;
		case 3:		/* all_data_sources_flushed */
			tp_metadata_int_multi(tp, "all_data_source_flushed_ns",
			    ts);
			tp_sorter_flushed(tp);
			break;
		case 4:		/* read_tracing_buffers_completed */
			tp_sorter_read_done(tp);
			break;
		case 5:		/* tracing_disabled */
			tp_metadata_int(tp, "tracing_disabled_ns", ts);
			break;
		}
	}
	if (it.err)
		tp_stat_inc(tp, ST_PROTO_DECODE_ERRORS, 1);
}

static void
push_packet(struct tp *tp, int64_t ts, struct tp_gen *g,
    const int64_t thread_vals[2], const uint8_t *buf, size_t len,
    int track_event)
{
	/* Track events have a queue of their own, as upstream's stream, and
	 * are kept as their TrackEvent alone (all the parse reads); the
	 * tokenizer's thread time and instruction count go in front of it
	 * when there are some. */
	uint32_t aux = track_event ? TP_SORT_TRACK_EVENT : 0;
	size_t hlen = 0;

	if (thread_vals != NULL && (thread_vals[0] != TP_NULL ||
	    thread_vals[1] != TP_NULL)) {
		aux |= TP_SORT_THREAD_VALS;
		hlen = 2 * sizeof(*thread_vals);
	}
	if (g != NULL)
		tp_proto_ref(g);
	if (tp_sorter_push_hdr(tp, ts, SK_PACKET, aux, g, thread_vals, hlen,
	    buf, len) == -1 && g != NULL)
		tp_proto_unref(g);
}

void
tp_proto_packet_log(struct tp *tp, enum tp_stat st, ptrdiff_t off,
    int64_t set)
{
	tp_import_log(tp, st, TP_NULL, tp->proto->pkt_off + off, set);
}

/* What a sequence's lost state cost, logged as upstream logs it: at the
 * byte offset of what was skipped (at off in the packet), with the
 * sequence. */
static void
lost_state_log(struct tp *tp, enum tp_stat st, uint32_t seq, ptrdiff_t off)
{
	int64_t set = tp_arg_set_new(tp);

	tp_arg_int_fixed(tp, set, "packet_sequence_id", seq, "uint");
	tp_proto_packet_log(tp, st, off, set);
}

/*
 * Whether a packet leaves its sequence's state as it is: of the host's,
 * on a sequence known and usable, with no interned data, defaults or
 * new state (for the tokenizer beside the parse thread, tp_pipe.h).
 */
static int
packet_plain(struct tp *tp, const struct tp_pkt *pk, struct tp_seq **s)
{
	*s = NULL;
	if (tp->machine != 0 || (pk->has_machine && pk->machine != 0) ||
	    (pk->flags & SEQ_STATE_CLEARED) || pk->defaults.id != 0 ||
	    pk->interned.id != 0)
		return 0;
	return pk->seq == 0 || ((*s = tp_proto_seq_find(tp, pk->seq)) != NULL &&
	    (!(pk->flags & SEQ_NEEDS_STATE) || (*s)->valid));
}

/* The kinds of packets sorted as they are, with no sequence's state. */
static int
kind_sorted(uint32_t id)
{
	switch (id) {
	case 2:		/* process_tree */
	case 9:		/* process_stats */
	case 7:		/* sys_stats */
	case 38:	/* battery */
	case 46:	/* trigger */
	case 113:	/* clone_snapshot_trigger */
	case 86:	/* android_system_property */
	case 109:	/* chrome_trigger */
	case 70:	/* initial_display_state */
	case TP_GK_TASK_STATE:
	case TP_GK_CPU_FREQ:
	case TP_GK_TASK_RENAME:
	case TP_GK_PROCESS_TREE:
	case TP_GK_GPU_FREQ:
		return 1;
	default:
		return 0;
	}
}

/*
 * The kinds of packets the tokenizer may go on with while the parse
 * thread parses: they only feed the sorter (an ftrace bundle waits
 * itself for the little else it may touch; a service event's metadata
 * rows go in the thread's queue; a marker is nothing).
 */
static int
kind_beside(uint32_t id)
{
	return id == 1 || id == 69 || id == 36 || kind_sorted(id);
}

/* Whether the tokenizer may go on with this packet while the parse
 * thread parses: a plain one of those kinds, at a time taken as it is
 * (a compressed one's packets are asked one by one). */
static int
packet_beside(struct tp *tp, const struct tp_pkt *pk)
{
	struct tp_seq *s;
	uint32_t clock;

	if ((pk->data.id == TP_UNPACK_DEFLATE || pk->data.id == TP_UNPACK_ZSTD) &&
	    tp->proto->depth < 2)
		return 1;
	if (!kind_beside(pk->data.id) || !packet_plain(tp, pk, &s))
		return 0;
	clock = pk->has_clock ? pk->clock_id : s != NULL &&
	    s->gen->has_defaults ? s->gen->clock_id : 0;
	return !pk->has_ts || tp_clock_plain(tp, pk->seq, clock);
}

/*
 * Whether a packet's clock snapshot may be read by the parse thread in
 * its turn: a plain one once the clocks are settled (the packets
 * tokenized beside meanwhile take their times as they are, which no
 * snapshot changes then; whatever would see it waits for the thread).
 */
static int
packet_later(struct tp *tp, const struct tp_pkt *pk)
{
	struct tp_seq *s;

	return pk->data.id == 6 && !pk->has_ts && packet_plain(tp, pk, &s) &&
	    tp_clock_settled(tp);
}

static void
tokenize_packet(struct tp *tp, const uint8_t *buf, size_t len)
{
	struct tp_proto *p = tp->proto;
	struct tp_pkt pk;
	struct tp_seq *s = NULL;
	struct tp_gen *g = NULL;
	uint32_t machine;
	int later = 0;

	if (tp_proto_packet_scan(buf, len, &pk) == -1) {
		tp_stat_inc(tp, ST_PROTO_DECODE_ERRORS, 1);
		return;
	}
	if (tp->pipe != NULL)
		tp_pipe_kind(tp, kind_beside(pk.data.id));
	if (tp_pipe_busy(tp) && !packet_beside(tp, &pk) &&
	    !(later = packet_later(tp, &pk)))
		tp_pipe_sync(tp);
	if ((pk.data.id == TP_UNPACK_DEFLATE || pk.data.id == TP_UNPACK_ZSTD) &&
	    p->depth < 2) {
		unpack_packets(tp, pk.data.id, pk.data.data, pk.data.len,
		    (uint64_t)p->pkt_off + (uint64_t)(pk.data.data - buf));
		return;
	}
	/* A synchronization marker is no machine's data. (The parse thread
	 * reads tp->machine: written only when it changes.) */
	if (pk.data.id != 36 && (machine = tp_machine_of_packet(tp,
	    pk.has_machine, pk.machine)) != tp->machine)
		tp->machine = machine;
	if (pk.seq != 0 && (s = seq_get(tp, pk.seq)) != NULL) {
		if (pk.first_on_seq)
			s->first_seen = 1;
		tp_proto_loss_packet(s, pk.dropped);
		if (pk.flags & SEQ_STATE_CLEARED) {
			struct tp_gen *ng = gen_new(s->gen);

			if (ng != NULL) {
				tp_proto_unref(s->gen);
				s->gen = ng;
			}
			s->valid = 1;
		} else if (pk.dropped) {
			/* State written before the loss may be gone. */
			s->valid = 0;
		}
		g = s->gen;
		if (pk.defaults.id != 0)
			defaults_untrusted(g, pk.defaults.data, pk.defaults.len);
		/* Interned data of a lost state would join the wrong one. */
		if (pk.interned.id != 0 && s->valid)
			interned_data_untrusted(tp, g, pk.interned.data,
			    pk.interned.len);
		else if (pk.interned.id != 0)
			lost_state_log(tp, ST_INTERNED_SKIPPED_STATE_INVALID,
			    pk.seq, pk.interned.data - buf);
		if (pk.flags & SEQ_NEEDS_STATE)
			s->needs_state++;
		if ((pk.flags & SEQ_NEEDS_STATE) && !s->valid) {
			s->needs_state_skipped++;
			lost_state_log(tp, ST_PACKET_SKIPPED_STATE_INVALID,
			    pk.seq, 0);
			return;
		}
	}

	/* A snapshot is read before its packet's own time, as upstream. */
	if (pk.data.id == 6 && !(later && tp_pipe_later_snapshot(tp, pk.seq,
	    pk.data.data, pk.data.len))) {
		tp_pipe_sync(tp);
		tp_clock_snapshot_untrusted(tp, pk.seq, pk.data.data,
		    pk.data.len);
	} else if (pk.data.id == 107)	/* remote_clock_sync */
		tp_clock_remote_sync_untrusted(tp, pk.data.data, pk.data.len);
	tokenize_timed(tp, buf, len, &pk, s, g, 0);
}

static void
deferred_free(struct tp_proto *p)
{
	size_t i;

	for (i = 0; i < p->ndeferred; i++) {
		free(p->deferred[i].buf);
		if (p->deferred[i].g != NULL)
			tp_proto_unref(p->deferred[i].g);
	}
	free(p->deferred);
	p->deferred = NULL;
	p->ndeferred = p->capdeferred = 0;
}

/* Keeps a packet for the end (0), or -1 when it cannot be. */
static int
defer_packet(struct tp *tp, const uint8_t *buf, size_t len, struct tp_gen *g)
{
	struct tp_proto *p = tp->proto;
	struct deferred *d;

	if (tp_grow((void **)&p->deferred, &p->capdeferred, p->ndeferred,
	    sizeof(*d)) == -1)
		return -1;
	d = &p->deferred[p->ndeferred];
	if ((d->buf = malloc(len > 0 ? len : 1)) == NULL)
		return -1;
	memcpy(d->buf, buf, len);
	d->len = len;
	if ((d->g = g) != NULL)
		tp_proto_ref(g);
	d->machine = tp->machine;
	d->off = p->pkt_off;
	p->ndeferred++;
	return 0;
}

/*
 * The packets deferred, tried again now that the whole file was read:
 * in file order, each as its machine's, with its sequence's state of
 * then; a time that still does not convert drops its packet (logged).
 */
static void
deferred_retry(struct tp *tp)
{
	struct tp_proto *p = tp->proto;
	struct tp_pkt pk;
	size_t i;

	for (i = 0; i < p->ndeferred; i++) {
		struct deferred *d = &p->deferred[i];

		tp->machine = d->machine;
		p->pkt_off = d->off;
		if (tp_proto_packet_scan(d->buf, d->len, &pk) == 0)
			tokenize_timed(tp, d->buf, d->len, &pk, pk.seq != 0 ?
			    seq_get(tp, pk.seq) : NULL, d->g, 1);
	}
	deferred_free(p);
	tp->machine = 0;
}

/*
 * A packet from its own time on: converted to trace time (else deferred
 * to the end while nothing left the sorter, as upstream; at the end,
 * dropped), then read by its kind.
 */
static void
tokenize_timed(struct tp *tp, const uint8_t *buf, size_t len,
    const struct tp_pkt *pk, struct tp_seq *s, struct tp_gen *g, int at_end)
{
	struct tp_proto *p = tp->proto;
	int64_t ts = pk->ts;

	if (pk->has_ts) {
		uint32_t clock = pk->has_clock ? pk->clock_id :
		    (g != NULL && g->has_defaults) ? g->clock_id : 0;
		int wait = !at_end && tp_sorter_can_hold(tp);

		if (tp_clock_to_trace_at(tp, pk->seq, clock, pk->ts, &ts,
		    p->pkt_off, wait) == -1) {
			if (wait && defer_packet(tp, buf, len, g) == 0) {
				tp_sorter_hold(tp);
				return;
			}
			/* Out of memory to keep it: the failure logged now
			 * (converting once more). */
			if (wait)
				(void)tp_clock_to_trace_at(tp, pk->seq, clock,
				    pk->ts, &ts, p->pkt_off, 0);
			tp_import_log(tp,
			    ST_CLOCK_SYNC_FAILURE_UNDEFERRABLE_PACKET_LOSS,
			    TP_NULL, p->pkt_off, TP_NULL);
			return;
		}
		if (ts > p->last_ts)
			p->last_ts = ts;
	} else {
		/* No time of its own: the newest seen, as upstream. */
		ts = p->last_ts;
		if (tp->sorter.pushed_any && tp->sorter.newest > ts)
			ts = tp->sorter.newest;
	}

	switch (pk->data.id) {
	case 60:	/* track_descriptor */
		track_descriptor_untrusted(tp, pk->data.data, pk->data.len);
		if (s != NULL && s->valid)
			seq_thread_from_desc(s, pk->data.data, pk->data.len);
		/*
		 * In time order, as upstream. But in a live stream one
		 * without a time of its own would take the newest one seen,
		 * maybe another sequence's, and make the rest out of order:
		 * it applies at once there.
		 */
		if (pk->has_ts || !tp->cfg.streaming)
			push_packet(tp, ts, NULL, NULL, buf, len, 0);
		else
			desc_apply(tp, pk->data.data, pk->data.len);
		break;
	case 54:	/* streaming_profile_packet: its times only */
		if (s != NULL)
			tp_proto_streaming_profile(tp, s, pk->data.data,
			    pk->data.len);
		break;
	case 44:	/* thread_descriptor (legacy) */
		if (s != NULL)
			tp_proto_thread_descriptor(tp, s, pk->data.data,
			    pk->data.len);
		break;
	case 43: {	/* process_descriptor (legacy) */
		struct tp_desc d;

		memset(&d, 0, sizeof(d));
		if (pk->has_ts)
			push_packet(tp, ts, NULL, NULL, buf, len, 0);
		else
			process_desc_untrusted(tp, pk->data.data, pk->data.len,
			    &d, 1);
		break;
	}
	case 119:	/* cpu_per_uid_data: incremental, in file order */
		tp_proto_cpu_per_uid(tp, pk->seq, g, ts, pk->data.data,
		    pk->data.len);
		break;
	case 1:		/* ftrace_events: kernel_symbols live in g */
		tp_proto_ftrace_bundle(tp, g, pk->data.data, pk->data.len);
		break;
	case 11: {	/* track_event */
		int64_t tv[2] = { TP_NULL, TP_NULL };

		if (s == NULL) {
			tp_stat_inc(tp, ST_TRACK_EVENT_TOKENIZER_ERRORS, 1);
			break;
		}
		if (tp_proto_te_times(tp, s, pk->data.data, pk->data.len,
		    pk->has_ts, &ts, tv) == -1)
			break;
		push_packet(tp, ts, g, tv, pk->data.data, pk->data.len, 1);
		break;
	}
	case 35:	/* trace_stats */
	case 34:	/* ftrace_stats */
	case 45:	/* system_info */
	case 67:	/* cpu_info */
	case 89:	/* trace_uuid */
		tp_proto_service_packet(tp, pk->data.id,
		    s != NULL ? &s->ftrace_errs_seen : &p->ftrace_errs_seen,
		    pk->data.data, pk->data.len);
		break;
	case 51:	/* chrome_metadata: in file order, as upstream */
		tp_proto_chrome_metadata(tp, pk->data.data, pk->data.len);
		break;
	case 126:	/* trace_attributes */
		tp_trace_attributes_untrusted(tp, pk->data.data, pk->data.len);
		break;
	case 33:	/* trace_config: the rest read in time order */
		tp_trace_config_tokenize(tp, pk->data.data, pk->data.len);
		push_packet(tp, ts, NULL, NULL, buf, len, 0);
		break;
	case 40:	/* power_rails: each sample sorted on its own */
		tp_proto_power_rails_tokenize(tp, ts, pk->data.data,
		    pk->data.len);
		break;
	case 77:	/* android_energy_estimation_breakdown */
		if (!tp_proto_energy_descriptor_tokenize(tp, pk->data.data,
		    pk->data.len))
			push_packet(tp, ts, NULL, NULL, buf, len, 0);
		break;
	case 91:	/* entity_state_residency */
		tp_proto_entity_states_tokenize(tp, pk->data.data, pk->data.len);
		push_packet(tp, ts, NULL, NULL, buf, len, 0);
		break;
	case 37:	/* profile_packet */
	case 66:	/* perf_sample: both with their sequence's interning */
		push_packet(tp, ts, g, NULL, buf, len, 0);
		break;
	case 69:	/* service_event: the sorter's marks */
		service_event_untrusted(tp, ts, pk->data.data, pk->data.len);
		break;
	case 95:	/* etw_events: each event sorted by its time */
		tp_etw_bundle_untrusted(tp, pk->data.data, pk->data.len);
		break;
	case 82:	/* translation_table: for the whole trace */
		tp_translation_untrusted(tp, pk->data.data, pk->data.len);
		break;
	default:
		if (kind_sorted(pk->data.id))
			push_packet(tp, ts, NULL, NULL, buf, len, 0);
		break;
	}
}

/* Feeds a piece of a Trace: whole packets are tokenized in place, a
 * packet split across pieces is gathered first. */
int
tp_proto_feed(struct tp *tp, const uint8_t *buf, size_t len)
{
	struct tp_proto *p;
	const uint8_t *end = buf + len, *start;

	if ((p = proto_get(tp)) == NULL)
		return tp_seterr(tp, "%s: out of memory", __func__);
	start = buf;
	while (buf < end) {
		uint64_t key, plen;
		const uint8_t *q, *hend;
		size_t take;

		if (p->skip > 0) {
			take = (size_t)(p->skip < (uint64_t)(end - buf) ?
			    p->skip : (uint64_t)(end - buf));
			p->skip -= take;
			buf += take;
			continue;
		}
		if (p->partneed > 0) {
			take = p->partneed - p->partlen;
			if (take > (size_t)(end - buf))
				take = (size_t)(end - buf);
			memcpy(p->part + p->partlen, buf, take);
			p->partlen += take;
			buf += take;
			if (p->partlen == p->partneed) {
				p->pkt_off = (int64_t)p->part_off;
				tokenize_packet(tp, p->part, p->partlen);
				p->partneed = p->partlen = 0;
				tp_sorter_drain(tp, 0);
			}
			continue;
		}
		/* A field header: key varint, then a length varint. */
		while (p->hdrlen < sizeof(p->hdr) && buf < end) {
			p->hdr[p->hdrlen++] = *buf++;
			q = pb_varint_untrusted(p->hdr, p->hdr + p->hdrlen,
			    &key);
			if (q == NULL)
				continue;
			if ((key & 7) != PB_LEN)
				break;
			if (pb_varint_untrusted(q, p->hdr + p->hdrlen, &plen))
				break;
		}
		hend = p->hdr + p->hdrlen;
		if ((q = pb_varint_untrusted(p->hdr, hend, &key)) == NULL) {
			if (p->hdrlen == sizeof(p->hdr))
				return tp_seterr(tp, "not a Perfetto trace:"
				    " bad field header");
			continue;	/* need more bytes */
		}
		switch (key & 7) {
		case PB_LEN:
			if ((q = pb_varint_untrusted(q, hend, &plen)) == NULL) {
				if (p->hdrlen == sizeof(p->hdr))
					return tp_seterr(tp, "not a Perfetto"
					    " trace: bad length");
				continue;
			}
			break;
		default:
			return tp_seterr(tp, "not a Perfetto trace: wire type"
			    " %u at top level", (unsigned)(key & 7));
		}
		p->hdrlen = 0;
		if ((key >> 3) != 1 || plen > TP_MAX_PACKET) {
			if ((key >> 3) == 1)
				tp_stat_inc(tp, ST_PROTO_DECODE_ERRORS, 1);
			p->skip = plen;
			continue;
		}
		if ((uint64_t)(end - buf) >= plen) {
			/* The common case: the whole packet is here. */
			p->pkt_off = (int64_t)(p->fed + (uint64_t)(buf - start));
			tokenize_packet(tp, buf, (size_t)plen);
			buf += plen;
			tp_sorter_drain(tp, 0);
			continue;
		}
		if (p->partcap < plen) {
			void *n = realloc(p->part, (size_t)plen);

			if (n == NULL)
				return tp_seterr(tp, "%s: out of memory",
				    __func__);
			p->part = n;
			p->partcap = (size_t)plen;
		}
		p->partneed = (size_t)plen;
		p->partlen = 0;
		p->part_off = p->fed + (uint64_t)(buf - start);
		if (plen == 0) {
			p->partneed = 0;
			continue;
		}
	}
	p->fed += len;
	return 0;
}

int
tp_proto_end(struct tp *tp)
{
	struct tp_proto *p = tp->proto;

	if (p != NULL && (p->partneed > 0 || p->hdrlen > 0))
		tp_stat_inc(tp, ST_PROTO_DECODE_ERRORS, 1);	/* truncated */
	if (p != NULL && p->ndeferred > 0)
		deferred_retry(tp);
	return 0;
}

void
tp_proto_free(struct tp *tp)
{
	struct tp_proto *p = tp->proto;
	uint64_t key, val;
	size_t i, it;

	tp_proto_power_free(tp);
	tp_proto_cpu_per_uid_free(tp);
	if (p == NULL)
		return;
	for (it = 0; tp_hash_next(&p->seqs, &it, &key, &val);) {
		struct tp_seq *s = (struct tp_seq *)(uintptr_t)val;

		tp_proto_unref(s->gen);
		free(s);
	}
	for (i = 0; i < p->ndescs; i++) {
		free(p->descs[i].name);
		free(p->descs[i].desc);
		free(p->descs[i].unit);
		free(p->descs[i].category);
		free(p->descs[i].y_axis);
		free(p->descs[i].merge_key);
		free(p->descs[i].mname);
	}
	tp_clock_free(tp);
	deferred_free(p);
	free(p->descs);
	free(p->part);
	tp_hash_free(&p->seqs);
	tp_hash_free(&p->descs_by_uuid);
	tp_hash_free(&p->uuid_of_utid);
	tp_hash_free(&p->uuid_of_upid);
	tp_hash_free(&p->uuid_tracks);
	free(p);
	tp->proto = NULL;
}

/* Sorted parse --------------------------------------------------------- */

/* The packets whose payload needs only its time to be read. */
static const struct {
	uint32_t	 field;
	void		(*fn)(struct tp *, int64_t, const uint8_t *, size_t);
} timed[] = {
	{ 2, tp_proto_process_tree },
	{ 9, tp_proto_process_stats },
	{ 7, tp_proto_sys_stats },
	{ 38, tp_proto_battery },
	{ 70, tp_proto_initial_display },
	{ 77, tp_proto_energy_breakdown },
	{ 86, tp_proto_sysprop },
	{ 91, tp_proto_entity_residency },
};

void
tp_proto_parse_sorted(struct tp *tp, struct tp_sort_item *it)
{
	struct tp_pkt pk;
	struct tp_desc d;
	int64_t tv[2];
	size_t i, hlen;

	switch (it->kind) {
	case SK_FTRACE:
		tp_ftrace_parse_event(tp, it->ref, it->ts, it->aux, it->data,
		    it->len);
		return;
	case SK_COMPACT_SWITCH:
		tp_ftrace_compact_switch(tp, it->ts, it->aux, it->data,
		    it->len);
		return;
	case SK_COMPACT_WAKING:
		tp_ftrace_compact_waking(tp, it->ts, it->aux, it->data,
		    it->len);
		return;
	case SK_COUNTER:
		tp_proto_cpu_per_uid_sorted(tp, it);
		return;
	case SK_FTRACE_PART:
		tp_ftrace_parse_event_part(tp, it->ref, it->ts, it->aux,
		    it->data, it->len);
		return;
	case SK_POWER_RAIL:
		tp_proto_power_rail_sorted(tp, it->ts, it->data, it->len);
		return;
	default:
		break;
	}
	tv[0] = tv[1] = TP_NULL;
	if (it->aux & TP_SORT_THREAD_VALS) {
		if (it->len < sizeof(tv))
			return;
		memcpy(tv, it->data, sizeof(tv));
	}
	hlen = it->aux & TP_SORT_THREAD_VALS ? sizeof(tv) : 0;
	if (it->aux & TP_SORT_TRACK_EVENT) {
		const struct tp_gen *g = it->ref;

		tp->proto->parse_seq = g != NULL ? (int64_t)g->seq_key : -1;
		tp_proto_track_event(tp, it->ref, it->ts, tv, it->data + hlen,
		    it->len - hlen);
		tp->proto->parse_seq = -1;
		return;
	}
	if (tp_proto_packet_scan(it->data + hlen, it->len - hlen, &pk) == -1)
		return;
	for (i = 0; i < sizeof(timed) / sizeof(timed[0]); i++)
		if (timed[i].field == pk.data.id) {
			timed[i].fn(tp, it->ts, pk.data.data, pk.data.len);
			return;
		}
	switch (pk.data.id) {
	case 37:
		tp_heap_profile_packet(tp, it->ref, pk.seq, it->ts,
		    pk.data.data, pk.data.len);
		break;
	case 66:
		tp_perf_sample(tp, it->ref, pk.seq, it->ts, pk.data.data,
		    pk.data.len);
		break;
	case 46:
	case 113:
		tp_proto_trigger(tp, it->ts, pk.data.data, pk.data.len,
		    pk.data.id == 113);
		break;
	case 109:
		tp_proto_chrome_trigger(tp, it->ts, pk.data.data, pk.data.len);
		break;
	case TP_GK_TASK_STATE:
	case TP_GK_CPU_FREQ:
	case TP_GK_TASK_RENAME:
	case TP_GK_PROCESS_TREE:
	case TP_GK_GPU_FREQ:
		tp_generic_kernel_packet(tp, pk.data.id, it->ts, pk.data.data,
		    pk.data.len);
		break;
	case 60:
		desc_apply(tp, pk.data.data, pk.data.len);
		break;
	case 33:
		tp_trace_config_untrusted(tp, pk.data.data, pk.data.len);
		break;
	case 43:
		memset(&d, 0, sizeof(d));
		process_desc_untrusted(tp, pk.data.data, pk.data.len, &d, 1);
		break;
	}
}
