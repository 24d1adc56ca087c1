/*
 * SMB layout and chunk state transitions (both sides), and the service's
 * untrusted view of a chunk header. See shm_abi.h for the layout.
 */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include "shm_abi.h"

const uint8_t shm_layout_nchunks[SHM_NUM_LAYOUTS] = { 0, 1, 2, 4, 7, 14, 0, 0 };

/* CAS attempts before giving up on a contended page header. */
#define SHM_CAS_ATTEMPTS	64

uint16_t
shm_chunk_size(size_t page_size, unsigned layout)
{
	unsigned n;

	if (layout >= SHM_NUM_LAYOUTS || page_size < SHM_PAGE_SIZE_MIN ||
	    page_size > SHM_PAGE_SIZE_MAX)
		return 0;
	if ((n = shm_layout_nchunks[layout]) == 0)
		return 0;
	return (uint16_t)(((page_size - SHM_PAGE_HDR_SIZE) / n) &
	    ~(size_t)(SHM_CHUNK_ALIGN - 1));
}

int
shm_abi_init(struct shm_abi *abi, void *base, size_t size, size_t page_size,
    const char **cause)
{
	unsigned l;

	memset(abi, 0, sizeof(*abi));
	if (page_size < SHM_PAGE_SIZE_MIN || page_size > SHM_PAGE_SIZE_MAX ||
	    page_size % SHM_PAGE_SIZE_MIN != 0) {
		*cause = "page size must be a multiple of 4 KiB, 4 to 64 KiB";
		return -1;
	}
	if (size == 0 || size % page_size != 0) {
		*cause = "buffer size must be a non-zero multiple of the page size";
		return -1;
	}
	if (base == NULL || (uintptr_t)base % SHM_PAGE_SIZE_MIN != 0) {
		*cause = "buffer must be 4 KiB aligned";
		return -1;
	}
	abi->base = base;
	abi->size = size;
	abi->page_size = page_size;
	abi->num_pages = size / page_size;
	for (l = 0; l < SHM_NUM_LAYOUTS; l++)
		abi->chunk_sizes[l] = shm_chunk_size(page_size, l);
	return 0;
}

uint32_t
shm_abi_page_bitmap(const struct shm_abi *abi, size_t page)
{
	return atomic_load_explicit(&shm_abi_page(abi, page)->bitmap,
	    memory_order_acquire);
}

int
shm_abi_try_partition(struct shm_abi *abi, size_t page, unsigned layout)
{
	uint32_t expected = 0, next;

	if (page >= abi->num_pages || layout < SHM_LAYOUT_DIV1 ||
	    layout > SHM_LAYOUT_DIV14)
		return -1;
	next = ((uint32_t)layout << SHM_LAYOUT_SHIFT) & SHM_LAYOUT_MASK;
	if (!atomic_compare_exchange_strong_explicit(
	    &shm_abi_page(abi, page)->bitmap, &expected, next,
	    memory_order_acq_rel, memory_order_relaxed))
		return -1;
	return 0;
}

uint32_t
shm_abi_free_chunks(const struct shm_abi *abi, size_t page)
{
	uint32_t bitmap, res = 0;
	unsigned i, n;

	bitmap = atomic_load_explicit(&shm_abi_page(abi, page)->bitmap,
	    memory_order_relaxed);
	n = shm_bitmap_nchunks(bitmap);
	for (i = 0; i < n; i++)
		if (shm_bitmap_state(bitmap, i) == SHM_CHUNK_FREE)
			res |= 1u << i;
	return res;
}

static void
shm_chunk_locate(const struct shm_abi *abi, size_t page, uint32_t bitmap,
    unsigned idx, struct shm_chunk *out)
{
	uint16_t csize = abi->chunk_sizes[shm_bitmap_layout(bitmap)];

	out->begin = abi->base + page * abi->page_size + SHM_PAGE_HDR_SIZE +
	    (size_t)idx * csize;
	out->page = (uint32_t)page;
	out->size = csize;
	out->idx = (uint8_t)idx;
}

/*
 * Moves chunk idx of 'page' from state 'from' to 'to' with a CAS loop. On
 * success returns 0 and the bitmap seen before the change in *seen.
 */
static int
shm_transition(struct shm_abi *abi, size_t page, unsigned idx,
    enum shm_chunk_state from, enum shm_chunk_state to, uint32_t *seen)
{
	struct shm_page_header *ph;
	uint32_t bitmap, next, shift;
	int attempt;

	if (page >= abi->num_pages || idx >= SHM_MAX_CHUNKS_PER_PAGE)
		return -1;
	ph = shm_abi_page(abi, page);
	shift = idx * SHM_CHUNK_STATE_BITS;
	for (attempt = 0; attempt < SHM_CAS_ATTEMPTS; attempt++) {
		bitmap = atomic_load_explicit(&ph->bitmap, memory_order_acquire);
		if (idx >= shm_bitmap_nchunks(bitmap) ||
		    shm_bitmap_state(bitmap, idx) != from)
			return -1;
		next = (bitmap & ~(SHM_CHUNK_STATE_MASK << shift)) |
		    ((uint32_t)to << shift);
		/* The last chunk to become free unpartitions the page. */
		if ((next & SHM_ALL_CHUNKS_MASK) == 0)
			next = 0;
		if (atomic_compare_exchange_weak_explicit(&ph->bitmap, &bitmap,
		    next, memory_order_acq_rel, memory_order_relaxed)) {
			*seen = bitmap;
			return 0;
		}
		if (attempt >= SHM_CAS_ATTEMPTS / 2)
			sched_yield();
	}
	return -1;
}

int
shm_abi_acquire_for_writing(struct shm_abi *abi, size_t page, unsigned idx,
    uint32_t chunk_id, uint16_t writer_id, uint16_t packets,
    struct shm_chunk *out)
{
	struct shm_chunk_header *ch;
	uint32_t seen;

	if (shm_transition(abi, page, idx, SHM_CHUNK_FREE,
	    SHM_CHUNK_BEING_WRITTEN, &seen) == -1)
		return -1;
	shm_chunk_locate(abi, page, seen, idx, out);
	ch = (struct shm_chunk_header *)(void *)out->begin;
	atomic_store_explicit(&ch->writer_id, writer_id, memory_order_relaxed);
	atomic_store_explicit(&ch->chunk_id, chunk_id, memory_order_relaxed);
	atomic_store_explicit(&ch->packets, packets, memory_order_release);
	return 0;
}

int
shm_abi_release_complete(struct shm_abi *abi, const struct shm_chunk *c)
{
	uint32_t seen;

	return shm_transition(abi, c->page, c->idx, SHM_CHUNK_BEING_WRITTEN,
	    SHM_CHUNK_COMPLETE, &seen);
}

int
shm_abi_acquire_for_reading(struct shm_abi *abi, size_t page, unsigned idx,
    struct shm_chunk *out)
{
	uint32_t seen;

	if (shm_transition(abi, page, idx, SHM_CHUNK_COMPLETE,
	    SHM_CHUNK_BEING_READ, &seen) == -1)
		return -1;
	shm_chunk_locate(abi, page, seen, idx, out);
	return 0;
}

int
shm_abi_release_free(struct shm_abi *abi, const struct shm_chunk *c)
{
	struct shm_chunk_header *ch = (struct shm_chunk_header *)(void *)c->begin;
	uint32_t seen;

	atomic_store_explicit(&ch->writer_id, 0, memory_order_relaxed);
	atomic_store_explicit(&ch->chunk_id, 0, memory_order_relaxed);
	atomic_store_explicit(&ch->packets, 0, memory_order_release);
	return shm_transition(abi, c->page, c->idx, SHM_CHUNK_BEING_READ,
	    SHM_CHUNK_FREE, &seen);
}

static struct shm_chunk_header *
shm_chunk_hdr(const struct shm_chunk *c)
{
	return (struct shm_chunk_header *)(void *)c->begin;
}

uint16_t
shm_chunk_packets_load(const struct shm_chunk *c)
{
	return atomic_load_explicit(&shm_chunk_hdr(c)->packets,
	    memory_order_acquire);
}

unsigned
shm_chunk_packets_inc(const struct shm_chunk *c)
{
	struct shm_chunk_header *ch = shm_chunk_hdr(c);
	uint16_t p;
	unsigned count;

	/* Only the owning writer changes it: load + store is enough. */
	p = atomic_load_explicit(&ch->packets, memory_order_relaxed);
	count = shm_packets_count(p) + 1;
	atomic_store_explicit(&ch->packets,
	    shm_packets_make(count, shm_packets_flags(p)), memory_order_release);
	return count;
}

void
shm_chunk_set_flags(const struct shm_chunk *c, unsigned flags)
{
	struct shm_chunk_header *ch = shm_chunk_hdr(c);
	uint16_t p;

	p = atomic_load_explicit(&ch->packets, memory_order_relaxed);
	atomic_store_explicit(&ch->packets, shm_packets_make(
	    shm_packets_count(p), shm_packets_flags(p) | flags),
	    memory_order_release);
}

void
shm_chunk_clear_flags(const struct shm_chunk *c, unsigned flags)
{
	struct shm_chunk_header *ch = shm_chunk_hdr(c);
	uint16_t p;

	p = atomic_load_explicit(&ch->packets, memory_order_relaxed);
	atomic_store_explicit(&ch->packets, shm_packets_make(
	    shm_packets_count(p), shm_packets_flags(p) & ~flags),
	    memory_order_release);
}

/*
 * Snapshots and checks the header of a located chunk. Each field is read
 * once; later changes by the producer do not matter because only this copy
 * is used.
 */
static int
shm_chunk_view_untrusted(const struct shm_chunk *c, int complete,
    struct shm_chunk_view *v, const char **cause)
{
	const struct shm_chunk_header *ch =
	    (const struct shm_chunk_header *)(const void *)c->begin;
	uint16_t packets;

	memset(v, 0, sizeof(*v));
	if (c->size <= SHM_CHUNK_HDR_SIZE) {
		*cause = "chunk smaller than its header";
		return -1;
	}
	v->chunk_id = atomic_load_explicit(&ch->chunk_id, memory_order_relaxed);
	v->writer_id = atomic_load_explicit(&ch->writer_id,
	    memory_order_relaxed);
	packets = atomic_load_explicit(&ch->packets, memory_order_acquire);
	v->npackets = (uint16_t)shm_packets_count(packets);
	/* Unknown flag bits are reserved for newer producers: ignore them. */
	v->flags = (uint8_t)(shm_packets_flags(packets) & SHM_CHUNK_FLAGS_KNOWN);
	v->payload = c->begin + SHM_CHUNK_HDR_SIZE;
	v->payload_size = (uint16_t)(c->size - SHM_CHUNK_HDR_SIZE);
	v->complete = complete ? 1 : 0;
	v->page = c->page;
	v->idx = c->idx;
	if (v->writer_id == 0 || v->writer_id > SHM_WRITER_ID_MAX) {
		*cause = "writer id out of range";
		return -1;
	}
	/* Each packet takes at least its size prefix (empty ones 1 byte). */
	if (v->npackets > v->payload_size) {
		*cause = "more packets than the chunk can hold";
		return -1;
	}
	return 0;
}

static int
shm_chunk_check_index(struct shm_abi *abi, uint32_t page, uint32_t idx,
    uint32_t *bitmapp, const char **cause)
{
	uint32_t bitmap;
	unsigned layout;

	*bitmapp = 0;

	if (page >= abi->num_pages) {
		*cause = "page index out of range";
		return -1;
	}
	if (idx >= SHM_MAX_CHUNKS_PER_PAGE) {
		*cause = "chunk index out of range";
		return -1;
	}
	*bitmapp = bitmap = shm_abi_page_bitmap(abi, page);
	layout = shm_bitmap_layout(bitmap);
	if (layout == SHM_LAYOUT_NONE) {
		*cause = "page not partitioned";
		return -1;
	}
	if (layout > SHM_LAYOUT_DIV14) {
		*cause = "reserved page layout";
		return -1;
	}
	if (idx >= shm_layout_nchunks[layout]) {
		*cause = "chunk index beyond the page layout";
		return -1;
	}
	return 0;
}

int
shm_chunk_acquire_untrusted(struct shm_abi *abi, uint32_t page, uint32_t idx,
    struct shm_chunk_view *v, const char **cause)
{
	struct shm_chunk c;
	uint32_t bitmap;

	memset(v, 0, sizeof(*v));
	if (shm_chunk_check_index(abi, page, idx, &bitmap, cause) == -1)
		return -1;
	if (shm_abi_acquire_for_reading(abi, page, idx, &c) == -1) {
		*cause = "chunk not complete";
		return -1;
	}
	if (shm_chunk_view_untrusted(&c, 1, v, cause) == -1) {
		/* Give the chunk back so the producer does not lose the page. */
		(void)shm_abi_release_free(abi, &c);
		return -1;
	}
	return 0;
}

int
shm_chunk_read_done(struct shm_abi *abi, const struct shm_chunk_view *v)
{
	struct shm_chunk c;

	c.begin = (uint8_t *)(uintptr_t)(v->payload - SHM_CHUNK_HDR_SIZE);
	c.page = v->page;
	c.idx = v->idx;
	c.size = (uint16_t)(v->payload_size + SHM_CHUNK_HDR_SIZE);
	return shm_abi_release_free(abi, &c);
}

int
shm_chunk_peek_untrusted(struct shm_abi *abi, uint32_t page, uint32_t idx,
    struct shm_chunk_view *v, const char **cause)
{
	struct shm_chunk c;
	uint32_t bitmap;
	enum shm_chunk_state st;

	memset(v, 0, sizeof(*v));
	/* One snapshot of the page header decides both layout and state. */
	if (shm_chunk_check_index(abi, page, idx, &bitmap, cause) == -1) {
		/* Unpartitioned pages and absent chunks hold nothing. */
		if (page < abi->num_pages && idx < SHM_MAX_CHUNKS_PER_PAGE &&
		    shm_bitmap_layout(bitmap) <= SHM_LAYOUT_DIV14)
			return 1;
		return -1;
	}
	st = shm_bitmap_state(bitmap, idx);
	if (st != SHM_CHUNK_BEING_WRITTEN && st != SHM_CHUNK_COMPLETE)
		return 1;
	shm_chunk_locate(abi, page, bitmap, idx, &c);
	return shm_chunk_view_untrusted(&c, st == SHM_CHUNK_COMPLETE, v, cause);
}

unsigned
shm_abi_scrape_untrusted(struct shm_abi *abi,
    void (*cb)(const struct shm_chunk_view *, void *), void *arg)
{
	struct shm_chunk_view v;
	const char *cause;
	unsigned bad = 0;
	uint32_t page, idx;
	int r;

	for (page = 0; page < abi->num_pages; page++) {
		for (idx = 0; idx < SHM_MAX_CHUNKS_PER_PAGE; idx++) {
			r = shm_chunk_peek_untrusted(abi, page, idx, &v, &cause);
			if (r == 0)
				cb(&v, arg);
			else if (r == -1) {
				bad++;
				break;	/* the page header is bad: skip the page */
			}
		}
	}
	return bad;
}

int
shm_chunk_view_from_bytes_untrusted(const uint8_t *data, size_t len,
    int complete, struct shm_chunk_view *v, const char **cause)
{
	struct shm_chunk c;

	memset(v, 0, sizeof(*v));
	if (len <= SHM_CHUNK_HDR_SIZE || len > UINT16_MAX) {
		*cause = "chunk data size out of range";
		return -1;
	}
	/* Private memory here, but the same single-read parser is fine. */
	c.begin = (uint8_t *)(uintptr_t)data;
	c.size = (uint16_t)len;
	c.page = 0;
	c.idx = 0;
	return shm_chunk_view_untrusted(&c, complete, v, cause);
}
