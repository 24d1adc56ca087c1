/*
 * Central trace buffer (see trace_buffer.h for the model).
 *
 * Layout of the ring: records of TB_ALIGN-byte multiples, each opening with
 * a struct tb_rec. Records exist only below the high-water mark 'hwm'; the
 * write position 'wptr' moves forward and wraps, deleting what it covers.
 * A record is one of:
 *   TB_PAD   filler (end of the ring, or the rest of a record cut short),
 *   TB_CHUNK a chunk still to be read (indexed, on its sequence's list),
 *   TB_DONE  a chunk fully read (no longer indexed; space reused in turn).
 *
 * Bookkeeping, all allocated at creation:
 *   - index: open-addressed hash (linear probing, backward-shift deletion)
 *     of live chunk records by (producer, writer, chunk id);
 *   - sequences: open-addressed table by (producer, writer), each holding
 *     its live chunks as a list in chunk-id order (wrap-aware), the last
 *     chunk id read and whether loss happened since the last packet.
 * Chunk records are at least TB_MIN_RECORD bytes, which bounds the number of
 * records, hence the index size, by size / TB_MIN_RECORD. Bookkeeping is
 * then about 4.3% of the ring (per KiB: index 8 bytes, sequence slot 32,
 * active list 4),
 * at the price of wasting space for chunks under 1 KiB (SMB layouts of 7
 * and 14 chunks per 4 KiB page; producers default to one chunk per page).
 */
#include "config.h"

#include <sys/mman.h>

#include <stdlib.h>
#include <string.h>

#include "trace_buffer.h"

#define TB_ALIGN	32u
#define TB_MIN_RECORD	1024u
#define TB_MAX_SIZE	(0xffffffffu - 4095u)

enum tb_kind {
	TB_FREE = 0,	/* never written */
	TB_PAD = 1,
	TB_CHUNK = 2,
	TB_DONE = 3,
};

struct tb_rec {
	uint32_t	size;		/* whole record, multiple of TB_ALIGN */
	uint8_t		kind;
	uint8_t		flags;		/* SHM_CHUNK_* */
	uint16_t	nfrags;		/* fragments to read */
	uint16_t	producer_id;
	uint16_t	writer_id;
	uint32_t	chunk_id;
	uint32_t	prev, next;	/* sequence list: record number + 1 */
	uint16_t	payload_size;
	uint16_t	frags_read;
	uint16_t	read_off;	/* next fragment, from payload start */
	uint8_t		complete;
	uint8_t		pad0;
};
_Static_assert(sizeof(struct tb_rec) == TB_ALIGN, "record header size");

struct tb_seq {
	uint16_t	producer_id;
	uint16_t	writer_id;
	uint32_t	uid;
	uint32_t	head, tail;	/* record number + 1, 0: empty */
	uint32_t	last_written;
	uint32_t	last_read;
	uint8_t		state;		/* TB_SEQ_* */
	uint8_t		have_written;
	uint8_t		have_read;
	uint8_t		dropped;	/* loss since the last packet returned */
	uint8_t		gone;		/* producer gone: nothing more will come */
	uint32_t	active_pos;	/* in trace_buffer.active, + 1; 0: idle */
};

enum { TB_SEQ_EMPTY = 0, TB_SEQ_LIVE = 1, TB_SEQ_TOMB = 2 };

struct trace_buffer {
	uint8_t			*ring;
	size_t			 size;
	size_t			 wptr;
	size_t			 hwm;
	int			 policy;
	int			 discarding;	/* DISCARD policy, full */
	uint32_t		*index;		/* record number + 1, 0 empty */
	size_t			 index_cap;	/* power of 2 */
	struct tb_seq		*seqs;
	size_t			 seq_cap;	/* power of 2 */
	size_t			 seq_used;	/* LIVE + TOMB */
	size_t			 seq_idle;	/* emptied since the last purge */
	uint32_t		*active;	/* slots of sequences with chunks */
	size_t			 nactive;
	size_t			 read_cursor;	/* in active */
	struct trace_buffer_slice *slices;
	size_t			 slices_cap;
	struct trace_buffer_stats st;
};

static size_t
tb_pow2(size_t n)
{
	size_t p = 16;

	while (p < n)
		p <<= 1;
	return p;
}

static inline struct tb_rec *
tb_rec_at(const struct trace_buffer *tb, uint32_t num)
{
	return (struct tb_rec *)(void *)(tb->ring + (size_t)(num - 1) * TB_ALIGN);
}

static inline uint32_t
tb_rec_num(const struct trace_buffer *tb, const struct tb_rec *r)
{
	return (uint32_t)(((const uint8_t *)r - tb->ring) / TB_ALIGN) + 1;
}

static inline uint8_t *
tb_rec_payload(struct tb_rec *r)
{
	return (uint8_t *)(r + 1);
}

/* a comes before b in a sequence whose ids wrap at 2^32. */
static inline int
tb_id_before(uint32_t a, uint32_t b)
{
	return a != b && (uint32_t)(b - a) < 0x80000000u;
}

static inline size_t
tb_hash(uint16_t producer, uint16_t writer, uint32_t chunk_id)
{
	uint64_t h = ((uint64_t)producer << 48) | ((uint64_t)writer << 32) |
	    chunk_id;

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return (size_t)h;
}

struct trace_buffer *
trace_buffer_new(size_t size, enum trace_buffer_policy policy,
    const char **cause)
{
	struct trace_buffer *tb;
	size_t max_records;
	void *p;

	if (size == 0 || size > TB_MAX_SIZE) {
		*cause = "buffer size out of range";
		return NULL;
	}
	if (policy != TRACE_BUFFER_UNSPECIFIED && policy != TRACE_BUFFER_RING &&
	    policy != TRACE_BUFFER_DISCARD) {
		*cause = "unknown fill policy";
		return NULL;
	}
	size = (size + 4095) & ~(size_t)4095;
	if ((tb = calloc(1, sizeof(*tb))) == NULL) {
		*cause = "out of memory";
		return NULL;
	}
	/* Untouched pages of the ring cost nothing until written. */
	p = mmap(NULL, size, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		*cause = "cannot map the buffer";
		free(tb);
		return NULL;
	}
	tb->ring = p;
	tb->size = size;
	tb->policy = policy == TRACE_BUFFER_DISCARD ? TRACE_BUFFER_DISCARD :
	    TRACE_BUFFER_RING;
	max_records = size / TB_MIN_RECORD;
	tb->index_cap = tb_pow2(2 * max_records);
	/*
	 * Up to 3/4 of max_records sequences (pathological: one chunk each)
	 * beyond which chunks of new sequences are discarded and counted.
	 */
	tb->seq_cap = tb_pow2(max_records);
	tb->index = calloc(tb->index_cap, sizeof(*tb->index));
	tb->seqs = calloc(tb->seq_cap, sizeof(*tb->seqs));
	tb->active = calloc(tb->seq_cap, sizeof(*tb->active));
	if (tb->index == NULL || tb->seqs == NULL || tb->active == NULL) {
		*cause = "out of memory";
		trace_buffer_free(tb);
		return NULL;
	}
	tb->st.buffer_size = size;
	return tb;
}

void
trace_buffer_free(struct trace_buffer *tb)
{
	if (tb == NULL)
		return;
	if (tb->ring != NULL)
		munmap(tb->ring, tb->size);
	free(tb->index);
	free(tb->seqs);
	free(tb->active);
	free(tb->slices);
	free(tb);
}

struct trace_buffer *
trace_buffer_clone(const struct trace_buffer *src, const char **cause)
{
	struct trace_buffer *tb;

	if ((tb = trace_buffer_new(src->size, (enum trace_buffer_policy)
	    src->policy, cause)) == NULL)
		return NULL;
	/* Same geometry, so record numbers and table slots carry over. */
	memcpy(tb->ring, src->ring, src->hwm);
	memcpy(tb->index, src->index, src->index_cap * sizeof(*tb->index));
	memcpy(tb->seqs, src->seqs, src->seq_cap * sizeof(*tb->seqs));
	memcpy(tb->active, src->active, src->seq_cap * sizeof(*tb->active));
	tb->nactive = src->nactive;
	tb->wptr = src->wptr;
	tb->hwm = src->hwm;
	tb->discarding = src->discarding;
	tb->seq_used = src->seq_used;
	tb->seq_idle = src->seq_idle;
	tb->st = src->st;
	tb->st.bytes_read = 0;
	tb->st.chunks_read = 0;
	tb->st.readaheads_succeeded = 0;
	tb->st.readaheads_failed = 0;
	return tb;
}

size_t
trace_buffer_size(const struct trace_buffer *tb)
{
	return tb->size;
}

size_t
trace_buffer_overhead(const struct trace_buffer *tb)
{
	return sizeof(*tb) + tb->index_cap * sizeof(*tb->index) +
	    tb->seq_cap * (sizeof(*tb->seqs) + sizeof(*tb->active)) +
	    tb->slices_cap * sizeof(*tb->slices);
}

void
trace_buffer_stats(const struct trace_buffer *tb, struct trace_buffer_stats *st)
{
	*st = tb->st;
}

void
trace_buffer_note_abi_violation(struct trace_buffer *tb)
{
	tb->st.abi_violations++;
}

/* Index of live chunk records. */

static uint32_t
tb_index_find(const struct trace_buffer *tb, uint16_t producer,
    uint16_t writer, uint32_t chunk_id, size_t *slotp)
{
	size_t mask = tb->index_cap - 1, i, n;
	struct tb_rec *r;

	i = tb_hash(producer, writer, chunk_id) & mask;
	for (n = 0; n < tb->index_cap; n++, i = (i + 1) & mask) {
		if (tb->index[i] == 0)
			return 0;
		r = tb_rec_at(tb, tb->index[i]);
		if (r->producer_id == producer && r->writer_id == writer &&
		    r->chunk_id == chunk_id) {
			if (slotp != NULL)
				*slotp = i;
			return tb->index[i];
		}
	}
	return 0;
}

static void
tb_index_add(struct trace_buffer *tb, struct tb_rec *r)
{
	size_t mask = tb->index_cap - 1, i;

	/* Never full: at most half the slots hold records. */
	i = tb_hash(r->producer_id, r->writer_id, r->chunk_id) & mask;
	while (tb->index[i] != 0)
		i = (i + 1) & mask;
	tb->index[i] = tb_rec_num(tb, r);
}

static void
tb_index_del(struct trace_buffer *tb, struct tb_rec *r)
{
	size_t mask = tb->index_cap - 1, i, j, home;
	struct tb_rec *o;

	if (tb_index_find(tb, r->producer_id, r->writer_id, r->chunk_id,
	    &i) == 0)
		return;
	tb->index[i] = 0;
	/* Backward shift: pull later entries of the run into the hole. */
	for (j = (i + 1) & mask; tb->index[j] != 0; j = (j + 1) & mask) {
		o = tb_rec_at(tb, tb->index[j]);
		home = tb_hash(o->producer_id, o->writer_id, o->chunk_id) &
		    mask;
		/* Move j to i unless home lies cyclically in (i, j]. */
		if (i <= j ? (home <= i || home > j) : (home <= i && home > j)) {
			tb->index[i] = tb->index[j];
			tb->index[j] = 0;
			i = j;
		}
	}
}

/* Sequences. */

static struct tb_seq *
tb_seq_find(struct trace_buffer *tb, uint16_t producer, uint16_t writer)
{
	size_t mask = tb->seq_cap - 1, i, n;
	struct tb_seq *s;

	i = tb_hash(producer, writer, 0) & mask;
	for (n = 0; n < tb->seq_cap; n++, i = (i + 1) & mask) {
		s = &tb->seqs[i];
		if (s->state == TB_SEQ_EMPTY)
			return NULL;
		if (s->state == TB_SEQ_LIVE && s->producer_id == producer &&
		    s->writer_id == writer)
			return s;
	}
	return NULL;
}

/*
 * Forgets sequences with no chunks (their last-read id is lost: their next
 * packet is flagged as following a loss unless it starts at chunk 0) and
 * rehashes the rest, which also clears tombstones. Without memory for the
 * rehash, the idle sequences only become tombstones.
 */
static void
tb_seq_purge(struct trace_buffer *tb)
{
	size_t i, j, mask = tb->seq_cap - 1;
	struct tb_seq *old;

	for (i = 0; i < tb->seq_cap; i++)
		if (tb->seqs[i].state == TB_SEQ_LIVE && tb->seqs[i].head == 0)
			tb->seqs[i].state = TB_SEQ_TOMB;
	tb->read_cursor = 0;
	if ((old = malloc(tb->seq_cap * sizeof(*old))) == NULL)
		return;
	memcpy(old, tb->seqs, tb->seq_cap * sizeof(*old));
	memset(tb->seqs, 0, tb->seq_cap * sizeof(*old));
	tb->seq_used = 0;
	tb->nactive = 0;
	for (i = 0; i < tb->seq_cap; i++) {
		if (old[i].state != TB_SEQ_LIVE)
			continue;
		j = tb_hash(old[i].producer_id, old[i].writer_id, 0) & mask;
		while (tb->seqs[j].state != TB_SEQ_EMPTY)
			j = (j + 1) & mask;
		tb->seqs[j] = old[i];
		tb->seq_used++;
		/* Only sequences holding chunks survive: all are active. */
		tb->active[tb->nactive++] = (uint32_t)j;
		tb->seqs[j].active_pos = (uint32_t)tb->nactive;
	}
	free(old);
}

static struct tb_seq *
tb_seq_get(struct trace_buffer *tb, uint16_t producer, uint16_t writer,
    uint32_t uid)
{
	size_t mask = tb->seq_cap - 1, i;
	struct tb_seq *s;

	if ((s = tb_seq_find(tb, producer, writer)) != NULL)
		return s;
	if (tb->seq_used + 1 > tb->seq_cap / 4 * 3) {
		/* Only worth it when some sequence went idle since last time. */
		if (tb->seq_idle == 0)
			return NULL;
		tb->seq_idle = 0;
		tb_seq_purge(tb);
		if (tb->seq_used + 1 > tb->seq_cap / 4 * 3)
			return NULL;
	}
	i = tb_hash(producer, writer, 0) & mask;
	while (tb->seqs[i].state == TB_SEQ_LIVE)
		i = (i + 1) & mask;
	s = &tb->seqs[i];
	if (s->state == TB_SEQ_EMPTY)
		tb->seq_used++;
	memset(s, 0, sizeof(*s));
	s->state = TB_SEQ_LIVE;
	s->producer_id = producer;
	s->writer_id = writer;
	s->uid = uid;
	return s;
}

static void
tb_active_add(struct trace_buffer *tb, struct tb_seq *s)
{
	if (s->active_pos != 0)
		return;
	tb->active[tb->nactive++] = (uint32_t)(s - tb->seqs);
	s->active_pos = (uint32_t)tb->nactive;
}

static void
tb_active_del(struct trace_buffer *tb, struct tb_seq *s)
{
	uint32_t pos = s->active_pos - 1, last;

	if (s->active_pos == 0)
		return;
	last = tb->active[--tb->nactive];
	tb->active[pos] = last;
	tb->seqs[last].active_pos = pos + 1;
	s->active_pos = 0;
}

/* Inserts r into its sequence list, keeping chunk-id order. */
static void
tb_seq_link(struct trace_buffer *tb, struct tb_seq *s, struct tb_rec *r)
{
	uint32_t num = tb_rec_num(tb, r), cur = s->tail;

	while (cur != 0 && tb_id_before(r->chunk_id, tb_rec_at(tb, cur)->chunk_id))
		cur = tb_rec_at(tb, cur)->prev;
	r->prev = cur;
	if (cur == 0) {
		r->next = s->head;
		s->head = num;
	} else {
		r->next = tb_rec_at(tb, cur)->next;
		tb_rec_at(tb, cur)->next = num;
	}
	if (r->next != 0)
		tb_rec_at(tb, r->next)->prev = num;
	else
		s->tail = num;
	tb_active_add(tb, s);
}

static void
tb_seq_unlink(struct trace_buffer *tb, struct tb_seq *s, struct tb_rec *r)
{
	if (r->prev != 0)
		tb_rec_at(tb, r->prev)->next = r->next;
	else
		s->head = r->next;
	if (r->next != 0)
		tb_rec_at(tb, r->next)->prev = r->prev;
	else
		s->tail = r->prev;
	r->prev = r->next = 0;
	if (s->head == 0) {
		tb_active_del(tb, s);
		tb->seq_idle++;
	}
}

/* Takes a live chunk out of the index and its sequence. */
static void
tb_chunk_remove(struct trace_buffer *tb, struct tb_rec *r)
{
	struct tb_seq *s;

	tb_index_del(tb, r);
	if ((s = tb_seq_find(tb, r->producer_id, r->writer_id)) != NULL)
		tb_seq_unlink(tb, s, r);
	r->kind = TB_DONE;
}

/* A fully read chunk leaves the index; its bytes count as read. */
static void
tb_chunk_consume(struct trace_buffer *tb, struct tb_seq *s, struct tb_rec *r)
{
	if (r->complete) {
		tb->st.chunks_read++;
		tb->st.bytes_read += r->size;
	}
	s->last_read = r->chunk_id;
	s->have_read = 1;
	tb_chunk_remove(tb, r);
}

/* Writing. */

static void
tb_write_padding(struct trace_buffer *tb, size_t off, size_t len)
{
	struct tb_rec *r = (struct tb_rec *)(void *)(tb->ring + off);

	memset(r, 0, sizeof(*r));
	r->size = (uint32_t)len;
	r->kind = TB_PAD;
	tb->st.padding_bytes_written += len;
}

/*
 * Would clearing [off, off + len) destroy unread data? (DISCARD policy asks
 * before touching anything.)
 */
static int
tb_range_has_unread(struct trace_buffer *tb, size_t off, size_t len)
{
	size_t end = off + len;
	struct tb_rec *r;

	while (off < end && off < tb->hwm) {
		r = (struct tb_rec *)(void *)(tb->ring + off);
		if (r->kind == TB_CHUNK &&
		    (r->frags_read < r->nfrags || !r->complete))
			return 1;
		off += r->size;
	}
	return 0;
}

/*
 * Deletes every record starting in [off, off + len). Returns the end of the
 * last deleted record (>= off + len, or off + len if the area was never
 * written).
 */
static size_t
tb_range_clear(struct trace_buffer *tb, size_t off, size_t len)
{
	size_t end = off + len;
	struct tb_seq *s;
	struct tb_rec *r;

	while (off < end) {
		if (off >= tb->hwm)
			return end;
		r = (struct tb_rec *)(void *)(tb->ring + off);
		switch (r->kind) {
		case TB_PAD:
			tb->st.padding_bytes_cleared += r->size;
			break;
		case TB_CHUNK:
			if (r->frags_read < r->nfrags || !r->complete) {
				tb->st.chunks_overwritten++;
				tb->st.bytes_overwritten += r->size;
				s = tb_seq_find(tb, r->producer_id,
				    r->writer_id);
				if (s != NULL)
					s->dropped = 1;
			}
			tb_chunk_remove(tb, r);
			break;
		default:
			break;
		}
		off += r->size;
	}
	return off;
}

/*
 * DISCARD policy, full: this and every later chunk is refused. The loss
 * comes after what the buffer holds, so no packet in it is flagged.
 */
static void
tb_discard(struct trace_buffer *tb)
{
	tb->discarding = 1;
	tb->st.chunks_discarded++;
}

/*
 * Parses the size prefix of the fragment at p (avail bytes left in the
 * payload): a varint of at most 4 bytes, the fragment inside the payload.
 * Returns the prefix length and *lenp, or 0 if bad (*lenp is then the size
 * read, if any, to tell the writer's drop marker apart).
 */
static inline size_t
tb_prefix_untrusted(const uint8_t *p, size_t avail, uint32_t *lenp)
{
	uint32_t len = 0;
	size_t i;

	for (i = 0; i < SHM_PACKET_HDR_SIZE && i < avail; i++) {
		len |= (uint32_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80))
			break;
	}
	if (i == SHM_PACKET_HDR_SIZE || i == avail) {
		*lenp = 0;		/* not even a complete varint */
		return 0;
	}
	*lenp = len;
	if ((size_t)len > avail - (i + 1))
		return 0;
	return i + 1;
}

/*
 * Bytes of r's payload its fragments take (on our copy). All of it when a
 * size prefix is bad: reading will find and count that.
 */
static size_t
tb_chunk_used_untrusted(const struct tb_rec *r)
{
	const uint8_t *p = (const uint8_t *)(r + 1);
	size_t off = 0, hl;
	uint32_t len;
	unsigned k;

	for (k = 0; k < r->nfrags; k++) {
		hl = tb_prefix_untrusted(p + off, r->payload_size - off, &len);
		if (hl == 0)
			return r->payload_size;
		off += hl + len;
	}
	return off;
}

/* Updates a chunk copied before (scraped) that has grown since. */
static int
tb_chunk_rewrite_untrusted(struct trace_buffer *tb, struct tb_rec *r,
    const struct shm_chunk_view *v, uint16_t nfrags, uint8_t flags,
    int complete)
{
	uint32_t next;

	/* A complete chunk is final (and stored trimmed): only duplicates. */
	if (r->complete) {
		if (complete && nfrags == r->nfrags &&
		    flags == r->flags)
			return 0;
		tb->st.abi_violations++;
		return -1;
	}
	if (r->payload_size != v->payload_size || nfrags < r->nfrags ||
	    (r->flags & flags) != r->flags) {
		tb->st.abi_violations++;
		return -1;
	}
	if (nfrags == r->nfrags && !complete)
		return 0;	/* nothing new */
	/* Reading went on past this chunk: rewriting it now would reorder. */
	next = r->next;
	if (next != 0 && tb_rec_at(tb, next)->chunk_id == r->chunk_id + 1 &&
	    tb_rec_at(tb, next)->frags_read > 0) {
		tb->st.abi_violations++;
		return -1;
	}
	memcpy(tb_rec_payload(r), v->payload, v->payload_size);
	r->nfrags = nfrags;
	r->flags = flags;
	r->complete = (uint8_t)complete;
	tb->st.chunks_rewritten++;
	return 0;
}

int
trace_buffer_copy_chunk_untrusted(struct trace_buffer *tb,
    uint16_t producer_id, uint32_t uid, const struct shm_chunk_view *v)
{
	size_t rsize, end, hwm_end;
	uint16_t nfrags;
	uint8_t flags;
	uint32_t num;
	struct tb_seq *s;
	struct tb_rec *r;
	int complete;

	if (v->writer_id == 0 || v->writer_id > SHM_WRITER_ID_MAX ||
	    v->payload_size == 0 || v->npackets > v->payload_size ||
	    v->npackets > SHM_MAX_PACKETS_PER_CHUNK) {
		tb->st.abi_violations++;
		return -1;
	}
	rsize = sizeof(struct tb_rec) + v->payload_size;
	if (rsize < TB_MIN_RECORD)
		rsize = TB_MIN_RECORD;
	rsize = (rsize + TB_ALIGN - 1) & ~(size_t)(TB_ALIGN - 1);
	if (rsize > tb->size) {
		tb->st.abi_violations++;
		return -1;
	}
	nfrags = v->npackets;
	flags = v->flags & SHM_CHUNK_FLAGS_KNOWN;
	complete = v->complete ? 1 : 0;
	/* The last packet of an unfinished chunk is not readable yet. */
	if (!complete && nfrags > 0) {
		nfrags--;
		flags &= (uint8_t)~(SHM_CHUNK_LAST_CONTINUES |
		    SHM_CHUNK_NEEDS_PATCHING);
	}

	num = tb_index_find(tb, producer_id, v->writer_id, v->chunk_id, NULL);
	if (num != 0)
		return tb_chunk_rewrite_untrusted(tb, tb_rec_at(tb, num), v,
		    nfrags, flags, complete);
	s = tb_seq_find(tb, producer_id, v->writer_id);
	/*
	 * Chunk 0 not after what was read, with nothing held: the writer id
	 * was freed and handed to a new writer. Start the sequence over.
	 */
	if (s != NULL && s->have_read && v->chunk_id == 0 && s->head == 0 &&
	    !tb_id_before(s->last_read, 0)) {
		s->have_read = s->have_written = 0;
		s->dropped = 0;
		s->gone = 0;
		s->uid = uid;
	}
	/* Read already (a scraped chunk committed again): nothing new. */
	if (s != NULL && s->have_read && !tb_id_before(s->last_read,
	    v->chunk_id))
		return 0;

	if (tb->discarding) {
		tb_discard(tb);
		return -1;
	}
	if (tb->policy == TRACE_BUFFER_DISCARD &&
	    (tb->wptr + rsize > tb->size ?
	    tb_range_has_unread(tb, tb->wptr, tb->size - tb->wptr) ||
	    tb_range_has_unread(tb, 0, rsize) :
	    tb_range_has_unread(tb, tb->wptr, rsize))) {
		tb_discard(tb);
		return -1;
	}

	/* Not enough room before the end: pad it and wrap. */
	if (tb->wptr + rsize > tb->size) {
		(void)tb_range_clear(tb, tb->wptr, tb->size - tb->wptr);
		tb_write_padding(tb, tb->wptr, tb->size - tb->wptr);
		if (tb->hwm < tb->size)
			tb->hwm = tb->size;
		tb->wptr = 0;
		tb->st.write_wrap_count++;
	}
	end = tb_range_clear(tb, tb->wptr, rsize);
	if (s == NULL && (s = tb_seq_get(tb, producer_id, v->writer_id,
	    uid)) == NULL) {
		tb->st.chunks_discarded++;
		return -1;
	}

	r = (struct tb_rec *)(void *)(tb->ring + tb->wptr);
	memset(r, 0, sizeof(*r));
	r->size = (uint32_t)rsize;
	r->kind = TB_CHUNK;
	r->flags = flags;
	r->nfrags = nfrags;
	r->producer_id = producer_id;
	r->writer_id = v->writer_id;
	r->chunk_id = v->chunk_id;
	r->payload_size = v->payload_size;
	r->complete = (uint8_t)complete;
	/* The one read of producer memory; only this copy is parsed. */
	memcpy(tb_rec_payload(r), v->payload, v->payload_size);
	/*
	 * A complete chunk will not change: keep only the bytes its packets
	 * use (flushed chunks are often mostly empty). The tail cleared for
	 * the full size becomes padding below. Unfinished chunks stay whole:
	 * their commit rewrites them in place.
	 */
	if (complete) {
		size_t used = tb_chunk_used_untrusted(r), small;

		small = sizeof(struct tb_rec) + used;
		if (small < TB_MIN_RECORD)
			small = TB_MIN_RECORD;
		small = (small + TB_ALIGN - 1) & ~(size_t)(TB_ALIGN - 1);
		if (small < rsize) {
			rsize = small;
			r->size = (uint32_t)rsize;
			r->payload_size = (uint16_t)used;
		}
	}
	tb_index_add(tb, r);
	tb_seq_link(tb, s, r);

	if (!s->have_written || !tb_id_before(v->chunk_id, s->last_written)) {
		s->last_written = v->chunk_id;
		s->have_written = 1;
	} else
		tb->st.chunks_committed_out_of_order++;

	tb->st.chunks_written++;
	tb->st.bytes_written += rsize;
	hwm_end = tb->wptr + rsize;
	/* A record cut short by this one leaves padding behind it. */
	if (end > hwm_end)
		tb_write_padding(tb, hwm_end, end - hwm_end);
	if (end > tb->hwm)
		tb->hwm = end;
	if (hwm_end > tb->hwm)
		tb->hwm = hwm_end;
	tb->wptr = hwm_end;
	if (tb->wptr == tb->size) {
		tb->wptr = 0;
		tb->st.write_wrap_count++;
	}
	return 0;
}

int
trace_buffer_patch_chunk_untrusted(struct trace_buffer *tb,
    uint16_t producer_id, uint16_t writer_id, uint32_t chunk_id,
    const struct shm_patch *patches, size_t npatches, int has_more)
{
	struct tb_rec *r;
	uint32_t num;
	size_t i;

	num = tb_index_find(tb, producer_id, writer_id, chunk_id, NULL);
	if (num == 0) {
		tb->st.patches_failed++;
		return -1;
	}
	r = tb_rec_at(tb, num);
	for (i = 0; i < npatches; i++) {
		if (r->payload_size < SHM_PATCH_SIZE ||
		    patches[i].offset > r->payload_size - SHM_PATCH_SIZE) {
			tb->st.patches_failed++;
			return -1;
		}
	}
	for (i = 0; i < npatches; i++)
		memcpy(tb_rec_payload(r) + patches[i].offset, patches[i].data,
		    SHM_PATCH_SIZE);
	tb->st.patches_succeeded += npatches;
	if (!has_more)
		r->flags &= (uint8_t)~SHM_CHUNK_NEEDS_PATCHING;
	return 0;
}

/* Reading. */

enum tb_frag { TB_FRAG_OK, TB_FRAG_EMPTY, TB_FRAG_BAD };

/*
 * Parses the next fragment of r (in our copy): its size prefix is a varint
 * of at most 4 bytes and the fragment must end inside the payload. A bad
 * fragment ends the chunk (the rest cannot be located) and is counted: as
 * writer packet loss for the drop marker, else as an ABI violation.
 */
static enum tb_frag
tb_frag_next_untrusted(struct trace_buffer *tb, struct tb_rec *r,
    const uint8_t **datap, size_t *lenp)
{
	const uint8_t *p = tb_rec_payload(r) + r->read_off;
	size_t avail, hl;
	uint32_t len;

	avail = r->read_off < r->payload_size ?
	    (size_t)(r->payload_size - r->read_off) : 0;
	if ((hl = tb_prefix_untrusted(p, avail, &len)) == 0) {
		if (len == SHM_PACKET_SIZE_DROP)
			tb->st.trace_writer_packet_loss++;
		else
			tb->st.abi_violations++;
		r->frags_read = r->nfrags;
		r->read_off = r->payload_size;
		return TB_FRAG_BAD;
	}
	*datap = p + hl;
	*lenp = len;
	r->read_off = (uint16_t)(r->read_off + hl + len);
	r->frags_read++;
	return len == 0 ? TB_FRAG_EMPTY : TB_FRAG_OK;
}

static int
tb_slice_add(struct trace_buffer *tb, size_t n, const uint8_t *data,
    size_t len)
{
	struct trace_buffer_slice *ns;
	size_t cap;

	if (n == tb->slices_cap) {
		cap = tb->slices_cap ? tb->slices_cap * 2 : 16;
		if ((ns = realloc(tb->slices, cap * sizeof(*ns))) == NULL)
			return -1;
		tb->slices = ns;
		tb->slices_cap = cap;
	}
	tb->slices[n].data = data;
	tb->slices[n].len = len;
	return 0;
}

static void
tb_packet_fill(struct trace_buffer *tb, struct tb_seq *s, size_t nslices,
    struct trace_buffer_packet *p)
{
	size_t i;

	p->slices = tb->slices;
	p->nslices = nslices;
	p->size = 0;
	for (i = 0; i < nslices; i++)
		p->size += tb->slices[i].len;
	p->producer_id = s->producer_id;
	p->writer_id = s->writer_id;
	p->uid = s->uid;
	p->previous_packet_dropped = s->dropped;
	s->dropped = 0;
}

enum tb_ra { TB_RA_OK, TB_RA_WAIT, TB_RA_LOST };

/*
 * The last fragment of r continues in later chunks: finds the chunk that
 * ends the packet, walking r+1, r+2, ... each holding the next fragment.
 */
static enum tb_ra
tb_readahead_untrusted(struct trace_buffer *tb, struct tb_rec *r,
    struct tb_rec **lastp)
{
	uint32_t want = r->chunk_id + 1, num;
	struct tb_rec *c;

	for (num = r->next; num != 0; num = c->next, want++) {
		c = tb_rec_at(tb, num);
		if (c->chunk_id != want)
			return TB_RA_LOST;	/* a chunk in between is gone */
		if (c->flags & SHM_CHUNK_NEEDS_PATCHING)
			return TB_RA_WAIT;
		if (c->nfrags == 0)
			return c->complete ? TB_RA_LOST : TB_RA_WAIT;
		if (!(c->flags & SHM_CHUNK_FIRST_CONTINUES) ||
		    c->frags_read != 0) {
			tb->st.abi_violations++;
			return TB_RA_LOST;
		}
		if (c->nfrags == 1 && (c->flags & SHM_CHUNK_LAST_CONTINUES))
			continue;	/* a middle piece of a large packet */
		*lastp = c;
		return TB_RA_OK;
	}
	return TB_RA_WAIT;
}

/* Next packet of sequence s: 1 and *p, or 0 if nothing is readable now. */
static int
tb_seq_read(struct trace_buffer *tb, struct tb_seq *s,
    struct trace_buffer_packet *p)
{
	const uint8_t *data;
	struct tb_rec *r, *c, *last;
	enum tb_frag fr;
	enum tb_ra ra;
	uint32_t num, nextnum;
	size_t len, n;
	int bad;

	while (s->head != 0) {
		r = tb_rec_at(tb, s->head);
		/* Patches only concern the last fragment: read up to it. */
		if ((r->flags & SHM_CHUNK_NEEDS_PATCHING) &&
		    r->frags_read + 1 >= r->nfrags) {
			if (!s->gone)
				return 0;
			/* They will never come: that packet is lost. */
			r->flags &= (uint8_t)~SHM_CHUNK_NEEDS_PATCHING;
			if (r->frags_read < r->nfrags)
				(void)tb_frag_next_untrusted(tb, r, &data,
				    &len);
			s->dropped = 1;
			continue;
		}
		/*
		 * Starting a chunk that does not follow the last one read; or,
		 * with nothing read before, one that is not the first ever.
		 */
		if (r->frags_read == 0 && r->read_off == 0 &&
		    (s->have_read ? r->chunk_id != s->last_read + 1 :
		    r->chunk_id != 0)) {
			s->dropped = 1;
			s->last_read = r->chunk_id - 1;
			s->have_read = 1;
		}
		if (r->frags_read >= r->nfrags) {
			/*
			 * A scraped, unfinished chunk: its commit may still
			 * bring more packets, so nothing after it is read.
			 */
			if (!r->complete && !s->gone)
				return 0;
			tb_chunk_consume(tb, s, r);
			continue;
		}
		if (r->frags_read == 0 && (r->flags & SHM_CHUNK_FIRST_CONTINUES)) {
			/* The head of this packet is gone. */
			(void)tb_frag_next_untrusted(tb, r, &data, &len);
			s->dropped = 1;
			continue;
		}
		if (r->frags_read + 1 < r->nfrags ||
		    !(r->flags & SHM_CHUNK_LAST_CONTINUES)) {
			fr = tb_frag_next_untrusted(tb, r, &data, &len);
			if (fr == TB_FRAG_BAD) {
				s->dropped = 1;
				continue;
			}
			if (fr == TB_FRAG_EMPTY)
				continue;
			if (tb_slice_add(tb, 0, data, len) == -1)
				return 0;
			tb_packet_fill(tb, s, 1, p);
			return 1;
		}

		/* Last fragment continues on the next chunk(s). */
		ra = tb_readahead_untrusted(tb, r, &last);
		if (ra != TB_RA_OK)
			tb->st.readaheads_failed++;
		if (ra == TB_RA_WAIT && !s->gone)
			return 0;
		if (ra != TB_RA_OK) {
			/* The rest of this packet is gone or will never come. */
			(void)tb_frag_next_untrusted(tb, r, &data, &len);
			s->dropped = 1;
			continue;
		}
		n = 0;
		bad = 0;
		for (num = s->head;; num = nextnum) {
			c = tb_rec_at(tb, num);
			nextnum = c->next;
			fr = tb_frag_next_untrusted(tb, c, &data, &len);
			if (fr == TB_FRAG_BAD)
				bad = 1;
			else if (len > 0 && tb_slice_add(tb, n++, data,
			    len) == -1)
				bad = 1;
			if (c == last)
				break;
			/* Fully read middle pieces leave (payload stays put). */
			tb_chunk_consume(tb, s, c);
		}
		if (bad || n == 0) {
			s->dropped = 1;
			continue;
		}
		tb->st.readaheads_succeeded++;
		tb_packet_fill(tb, s, n, p);
		return 1;
	}
	return 0;
}

void
trace_buffer_producer_gone(struct trace_buffer *tb, uint16_t producer_id)
{
	size_t i;

	for (i = 0; i < tb->nactive; i++)
		if (tb->seqs[tb->active[i]].producer_id == producer_id)
			tb->seqs[tb->active[i]].gone = 1;
}

void
trace_buffer_begin_read(struct trace_buffer *tb)
{
	tb->read_cursor = 0;
}

int
trace_buffer_read_next(struct trace_buffer *tb, struct trace_buffer_packet *p)
{
	struct tb_seq *s;
	uint32_t slot;

	memset(p, 0, sizeof(*p));
	while (tb->read_cursor < tb->nactive) {
		slot = tb->active[tb->read_cursor];
		s = &tb->seqs[slot];
		if (tb_seq_read(tb, s, p))
			return 1;
		/* Emptied sequences leave the array: the next one moves in. */
		if (tb->read_cursor < tb->nactive &&
		    tb->active[tb->read_cursor] == slot)
			tb->read_cursor++;
	}
	return 0;
}
