/*
 * The trace writer: packets into SMB chunks through pbw, fragments across
 * chunks, patches for sizes left behind in released chunks, and the
 * SMB-exhausted policies.
 *
 * A packet in flight over three chunks (n = nested message size field):
 *
 *   chunk 7 [..| len=F0 | packet ... n ...]      released, NEEDS_PATCHING,
 *                                                 LAST_CONTINUES
 *   chunk 8 [len=F1 | ... ]                       FIRST_ and LAST_CONTINUES
 *   chunk 9 [len=F2 | ... end | next packet ...]  FIRST_CONTINUES
 *
 * F0 and F1 are known when the writer leaves the chunk and written before
 * it is released; n is only known at the end, so it goes as a patch
 * (chunk 7, offset of n) with the next commit, and stays zero in the SMB.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "shm_arbiter.h"
#include "shm_arbiter_int.h"

/* Do not start a packet in less room than this (header + a few bytes). */
#define SHM_WRITER_MIN_ROOM	(SHM_PACKET_HDR_SIZE + 8)
#define SHM_GARBAGE_SIZE	1024

/* A size field whose chunk was released: filled later, sent as a patch. */
struct shm_wpatch {
	uint32_t	chunk_id;
	uint32_t	offset;		/* in the chunk payload */
	uint8_t		data[SHM_PATCH_SIZE];
	uint8_t		used;
	uint8_t		level;		/* pbw nesting level it belongs to */
};

struct shm_writer {
	struct pbw		 pbw;
	struct shm_arbiter	*arb;
	uint32_t		 target_buffer;
	uint16_t		 id;
	enum shm_exhausted_policy policy;
	struct shm_chunk	 chunk;		/* begin == NULL: none held */
	uint32_t		 next_chunk_id;
	uint8_t			*frag_size_field; /* this fragment's prefix */
	uint8_t			*frag_start;
	uint8_t			*last_size_field; /* last packet's prefix */
	int			 in_packet;
	int			 dropping;	/* writing into garbage */
	int			 packet_lost;	/* this packet went (partly) to garbage */
	int			 retry_after_packet;
	int			 reached_max_packets;
	int			 inflated;	/* count already has the next packet */
	int			 dropped_flag;
	int			 overhead;	/* packets now are the caller's own */
	int			 last_overhead;	/* ... and so is the last one */
	unsigned		 npatches;	/* wpatch slots in use */
	uint64_t		 dropped_packets;
	uint64_t		 overhead_lost;
	struct shm_wpatch	 wpatch[PBW_MAX_DEPTH];
	uint8_t			 garbage[SHM_GARBAGE_SIZE];
};

static int	shm_writer_refill(struct pbw *, size_t);

struct shm_writer *
shm_writer_new(struct shm_arbiter *arb, uint32_t target_buffer,
    enum shm_exhausted_policy policy, const char **cause)
{
	struct shm_writer *w;

	if ((w = calloc(1, sizeof(*w))) == NULL) {
		*cause = "out of memory";
		return NULL;
	}
	if (shm_arbiter_writer_id_get(arb, &w->id) == -1) {
		*cause = "all writer ids in use";
		free(w);
		return NULL;
	}
	w->arb = arb;
	w->target_buffer = target_buffer;
	w->policy = policy;
	w->pbw.refill = shm_writer_refill;
	w->pbw.owner = w;
	return w;
}

void
shm_writer_free(struct shm_writer *w)
{
	if (w == NULL)
		return;
	shm_writer_flush(w);
	shm_arbiter_writer_id_put(w->arb, w->id);
	free(w);
}

uint16_t
shm_writer_id(const struct shm_writer *w)
{
	return w->id;
}

uint32_t
shm_writer_target_buffer(const struct shm_writer *w)
{
	return w->target_buffer;
}

uint64_t
shm_writer_dropped_packets(const struct shm_writer *w)
{
	return w->dropped_packets;
}

void
shm_writer_overhead(struct shm_writer *w, int on)
{
	w->overhead = on;
}

uint64_t
shm_writer_overhead_lost(const struct shm_writer *w)
{
	return w->overhead_lost;
}

void
shm_writer_count_lost(struct shm_writer *w)
{
	w->dropped_packets++;
	w->dropped_flag = 1;
}

int
shm_writer_take_dropped(struct shm_writer *w)
{
	int r = w->dropped_flag;

	w->dropped_flag = 0;
	return r;
}

static int
shm_writer_in_chunk(const struct shm_writer *w, const uint8_t *p, size_t len)
{
	const uint8_t *pay;

	if (w->chunk.begin == NULL || p == NULL)
		return 0;
	pay = w->chunk.begin + SHM_CHUNK_HDR_SIZE;
	return p >= pay && p + len <= w->chunk.begin + w->chunk.size;
}

/* A patch slot is ready once the nested message it sizes has ended. */
static int
shm_wpatch_ready(const struct shm_writer *w, const struct shm_wpatch *p)
{
	return w->pbw.depth <= p->level ||
	    w->pbw.nest[p->level].size_field != p->data;
}

/*
 * Queues the ready patches, one entry per chunk; has_more_patches tells the
 * service whether that chunk still waits for sizes from open messages.
 */
static void
shm_writer_send_patches(struct shm_writer *w, const struct shm_commit_move *mv)
{
	struct shm_commit_patch out[PBW_MAX_DEPTH];
	struct shm_commit_patch *cp;
	struct shm_wpatch *p, *q;
	size_t n = 0, i, j;

	if (w->npatches == 0) {
		if (mv != NULL)
			shm_arbiter_queue(w->arb, mv, NULL, 0);
		return;
	}
	for (i = 0; i < PBW_MAX_DEPTH; i++) {
		p = &w->wpatch[i];
		if (!p->used || !shm_wpatch_ready(w, p))
			continue;
		cp = NULL;
		for (j = 0; j < n; j++)
			if (out[j].chunk_id == p->chunk_id)
				cp = &out[j];
		if (cp == NULL) {
			cp = &out[n++];
			memset(cp, 0, sizeof(*cp));
			cp->target_buffer = w->target_buffer;
			cp->writer_id = w->id;
			cp->chunk_id = p->chunk_id;
			for (j = 0; j < PBW_MAX_DEPTH; j++) {
				q = &w->wpatch[j];
				if (q->used && q->chunk_id == p->chunk_id &&
				    !shm_wpatch_ready(w, q))
					cp->has_more_patches = 1;
			}
		}
		cp->patches[cp->npatches].offset = p->offset;
		memcpy(cp->patches[cp->npatches].data, p->data, SHM_PATCH_SIZE);
		cp->npatches++;
		p->used = 0;
		w->npatches--;
	}
	if (mv != NULL || n > 0)
		shm_arbiter_queue(w->arb, mv, out, n);
}

/* Releases the held chunk as COMPLETE and queues it for commit. */
static void
shm_writer_return_chunk(struct shm_writer *w)
{
	struct shm_commit_move mv;

	if (w->chunk.begin == NULL)
		return;
	if (w->inflated) {
		/* The packet counted ahead never came: make it empty. */
		*w->pbw.wptr++ = 0;
		w->inflated = 0;
	}
	mv.page = w->chunk.page;
	mv.chunk = w->chunk.idx;
	mv.target_buffer = w->target_buffer;
	/* Fails only if someone broke the state machine: nothing to add. */
	(void)shm_abi_release_complete(&w->arb->abi, &w->chunk);
	memset(&w->chunk, 0, sizeof(w->chunk));
	w->last_size_field = NULL;
	shm_writer_send_patches(w, &mv);
}

static void
shm_writer_to_garbage(struct shm_writer *w)
{
	w->pbw.wptr = w->garbage;
	w->pbw.end = w->garbage + sizeof(w->garbage);
}

/*
 * Tells the service data is being lost right after what this chunk holds:
 * a packet whose size prefix is SHM_PACKET_SIZE_DROP. Appended when there is
 * room, else the last packet is sacrificed as the marker (as upstream does).
 */
static void
shm_writer_mark_loss(struct shm_writer *w)
{
	uint8_t *end = w->chunk.begin + w->chunk.size;

	if (w->chunk.begin == NULL)
		return;
	if ((size_t)(end - w->pbw.wptr) >= SHM_PACKET_HDR_SIZE &&
	    (w->inflated || !w->reached_max_packets)) {
		shm_write_redundant_varint(w->pbw.wptr, SHM_PACKET_SIZE_DROP);
		w->pbw.wptr += SHM_PACKET_HDR_SIZE;
		if (!w->inflated)
			(void)shm_chunk_packets_inc(&w->chunk);
		w->inflated = 0;
	} else if (w->last_size_field != NULL) {
		shm_write_redundant_varint(w->last_size_field,
		    SHM_PACKET_SIZE_DROP);
		/* A whole packet is lost too: count it where it belongs. */
		if (w->last_overhead)
			w->overhead_lost++;
		else
			w->dropped_packets++;
	}
}

/*
 * Leaves the current chunk for a new one. 'fragmenting': a packet is open
 * and continues in the new chunk. On exhaustion, switches to garbage.
 */
static void
shm_writer_switch(struct shm_writer *w, int fragmenting)
{
	struct shm_chunk nc;
	struct shm_wpatch *p;
	enum shm_exhausted_policy policy = w->policy;
	uint16_t packets = 0;
	uint8_t *pay;
	unsigned i, j;

	if (fragmenting)
		packets = shm_packets_make(1, SHM_CHUNK_FIRST_CONTINUES);
	if (w->dropping)
		policy = SHM_POLICY_DROP;	/* do not stall on every packet */
	if (shm_arbiter_get_chunk(w->arb, w->next_chunk_id, w->id, packets,
	    policy, &nc) == -1) {
		if (fragmenting) {
			/* Throw the started packet away on the service side. */
			if (w->frag_size_field != NULL)
				shm_write_redundant_varint(w->frag_size_field,
				    SHM_PACKET_SIZE_DROP);
			/* Sizes left in this chunk will never be filled. */
			for (i = 0; i < w->pbw.depth; i++)
				if (shm_writer_in_chunk(w,
				    w->pbw.nest[i].size_field, PBW_SIZE_FIELD))
					w->pbw.nest[i].size_field = NULL;
			w->packet_lost = 1;
		} else if (!w->dropping)
			shm_writer_mark_loss(w);
		shm_writer_return_chunk(w);
		w->dropping = 1;
		w->dropped_flag = 1;
		w->frag_size_field = NULL;
		w->reached_max_packets = 0;
		shm_writer_to_garbage(w);
		w->frag_start = w->pbw.wptr;
		return;
	}

	if (fragmenting && w->chunk.begin != NULL) {
		shm_write_redundant_varint(w->frag_size_field,
		    (uint32_t)(w->pbw.wptr - w->frag_start));
		shm_chunk_set_flags(&w->chunk, SHM_CHUNK_LAST_CONTINUES);
		/*
		 * Filled slots (their chunks went out already) leave first,
		 * so the slots in use stay one per open message at most.
		 */
		shm_writer_send_patches(w, NULL);
		/* Open messages sized in this chunk: their sizes become patches. */
		for (i = 0; i < w->pbw.depth; i++) {
			if (!shm_writer_in_chunk(w, w->pbw.nest[i].size_field,
			    PBW_SIZE_FIELD))
				continue;
			for (j = 0; j < PBW_MAX_DEPTH && w->wpatch[j].used; j++)
				;
			if (j == PBW_MAX_DEPTH)
				break;	/* cannot happen: depth <= slots */
			p = &w->wpatch[j];
			p->used = 1;
			w->npatches++;
			p->level = (uint8_t)i;
			p->chunk_id = w->next_chunk_id - 1;
			p->offset = (uint32_t)(w->pbw.nest[i].size_field -
			    shm_chunk_payload(&w->chunk));
			memset(p->data, 0, sizeof(p->data));
			w->pbw.nest[i].size_field = p->data;
			shm_chunk_set_flags(&w->chunk, SHM_CHUNK_NEEDS_PATCHING);
		}
	}
	shm_writer_return_chunk(w);

	w->dropping = 0;
	w->reached_max_packets = 0;
	w->retry_after_packet = 0;
	w->next_chunk_id++;
	w->chunk = nc;
	pay = shm_chunk_payload(&nc);
	w->frag_size_field = NULL;
	if (fragmenting) {
		w->frag_size_field = pay;
		memset(pay, 0, SHM_PACKET_HDR_SIZE);
		pay += SHM_PACKET_HDR_SIZE;
		w->frag_start = pay;
	}
	w->pbw.wptr = pay;
	w->pbw.end = nc.begin + nc.size;
}

static int
shm_writer_refill(struct pbw *pbw, size_t need)
{
	struct shm_writer *w = pbw->owner;

	if (w->dropping) {
		/* Wrap in the garbage; try the SMB again at the next packet. */
		w->retry_after_packet = 1;
		w->packet_lost = 1;
		shm_writer_to_garbage(w);
		return 0;
	}
	shm_writer_switch(w, w->in_packet);
	if (w->dropping)
		w->packet_lost = 1;
	return 0;
}

struct pbw *
shm_writer_packet_begin(struct shm_writer *w)
{
	struct pbw *pbw = &w->pbw;
	uint8_t *hdr;

	if (w->in_packet)
		shm_writer_packet_end(w);
	if (w->chunk.begin == NULL || w->dropping || w->reached_max_packets ||
	    w->retry_after_packet ||
	    pbw->end - pbw->wptr < (ptrdiff_t)SHM_WRITER_MIN_ROOM)
		shm_writer_switch(w, 0);

	pbw->depth = 0;
	pbw->ignored_depth = 0;
	pbw->error = 0;
	hdr = pbw->wptr;
	memset(hdr, 0, SHM_PACKET_HDR_SIZE);
	pbw->wptr += SHM_PACKET_HDR_SIZE;
	pbw->range_start = pbw->wptr;
	pbw->base = 0;
	w->frag_start = pbw->wptr;
	w->in_packet = 1;
	w->packet_lost = w->dropping;
	if (!w->dropping) {
		w->frag_size_field = hdr;
		w->last_size_field = hdr;
		w->last_overhead = w->overhead;
		if (w->inflated)
			w->inflated = 0;	/* counted at the last packet end */
		else if (shm_chunk_packets_inc(&w->chunk) >=
		    SHM_MAX_PACKETS_PER_CHUNK)
			w->reached_max_packets = 1;
	} else
		w->frag_size_field = NULL;
	return pbw;
}

void
shm_writer_packet_end(struct shm_writer *w)
{
	struct pbw *pbw = &w->pbw;

	if (!w->in_packet)
		return;
	while (pbw->depth > 0 || pbw->ignored_depth > 0)
		pbw_nested_end(pbw);
	if (!w->dropping && w->frag_size_field != NULL)
		shm_write_redundant_varint(w->frag_size_field,
		    (uint32_t)(pbw->wptr - w->frag_start));
	w->frag_size_field = NULL;
	w->in_packet = 0;
	/*
	 * Count the next packet now, as upstream's writer does: a chunk
	 * scraped while being written has its last counted packet ignored,
	 * and this way that is an empty one, not the packet just finished.
	 * The byte it needs stays free (room check), see return_chunk.
	 */
	if (!w->dropping && w->chunk.begin != NULL && !w->reached_max_packets &&
	    pbw->end - pbw->wptr >= 1 &&
	    pbw->end - pbw->wptr >= (ptrdiff_t)SHM_WRITER_MIN_ROOM) {
		if (shm_chunk_packets_inc(&w->chunk) >=
		    SHM_MAX_PACKETS_PER_CHUNK)
			w->reached_max_packets = 1;
		w->inflated = 1;
	}
	if (w->packet_lost && w->overhead)
		w->overhead_lost++;
	else if (w->packet_lost)
		w->dropped_packets++;
	w->packet_lost = 0;
	shm_writer_send_patches(w, NULL);
}

/* A few dozen bytes: inline word moves beat a call to memcpy. */
static inline void
copy_small(uint8_t *d, const uint8_t *s, size_t len)
{
	for (; len >= 8; d += 8, s += 8, len -= 8)
		memcpy(d, s, 8);
	while (len-- > 0)
		*d++ = *s++;
}

void
shm_writer_packet_copy(struct shm_writer *w, const void *buf, size_t len)
{
	struct pbw *pbw = &w->pbw;
	uint8_t *hdr;

	if (w->in_packet || w->chunk.begin == NULL || w->dropping ||
	    w->reached_max_packets || w->retry_after_packet ||
	    w->npatches != 0 || pbw->end - pbw->wptr <
	    (ptrdiff_t)(SHM_PACKET_HDR_SIZE + len + SHM_WRITER_MIN_ROOM)) {
		pbw = shm_writer_packet_begin(w);
		pbw_append(pbw, buf, len);
		shm_writer_packet_end(w);
		return;
	}
	/* What packet_begin and packet_end do for a packet that fits. */
	hdr = pbw->wptr;
	shm_write_redundant_varint(hdr, (uint32_t)len);
	copy_small(hdr + SHM_PACKET_HDR_SIZE, buf, len);
	pbw->wptr = hdr + SHM_PACKET_HDR_SIZE + len;
	w->last_size_field = hdr;
	w->last_overhead = w->overhead;
	if (w->inflated)
		w->inflated = 0;	/* counted at the last packet end */
	else if (shm_chunk_packets_inc(&w->chunk) >= SHM_MAX_PACKETS_PER_CHUNK)
		w->reached_max_packets = 1;
	/* Room is left (checked above): count the next one now, as end does. */
	if (!w->reached_max_packets) {
		if (shm_chunk_packets_inc(&w->chunk) >=
		    SHM_MAX_PACKETS_PER_CHUNK)
			w->reached_max_packets = 1;
		w->inflated = 1;
	}
}

void
shm_writer_flush(struct shm_writer *w)
{
	if (w->in_packet)
		shm_writer_packet_end(w);
	shm_writer_return_chunk(w);
	w->pbw.wptr = w->pbw.end = w->pbw.range_start = NULL;
	shm_arbiter_flush(w->arb, 0);
}
