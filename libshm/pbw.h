/*
 * pbw: streaming protobuf writer. Writes fields straight into the memory it
 * is given (an SMB chunk, or a flat buffer) without allocating. When the
 * range runs out the owner's refill hook supplies the next one (a new chunk:
 * the packet continues there as a fragment).
 *
 * Nested messages reserve a 4-byte size field, written as a padded varint
 * when the message ends (the size is not known before):
 *
 *   tag | 0x00 0x00 0x00 0x00 | nested fields ...        (while open)
 *   tag | 0x85 0x80 0x80 0x00 | nested fields (5 bytes)  (after end)
 *
 * The reserved field stays zero until filled. If the range holding it has
 * been handed over meanwhile, the owner points size_field at a patch slot
 * (see shm_writer) and the size reaches the service as a patch.
 *
 * Fast paths are inline: they only check that enough room is left.
 */
#ifndef FARO_PBW_H
#define FARO_PBW_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "shm_abi.h"	/* the padded 4-byte varint */

#define PBW_MAX_DEPTH	16	/* nested messages open at once */
#define PBW_SIZE_FIELD	4	/* reserved size field of a nested message */
#define PBW_FAST_ROOM	20	/* tag (5) + varint (10) + slack */

enum pbw_wire_type {
	PBW_WT_VARINT = 0,
	PBW_WT_FIXED64 = 1,
	PBW_WT_BYTES = 2,
	PBW_WT_FIXED32 = 5,
};

/* pbw.error bits: the caller's mistakes, reported, never fatal. */
#define PBW_ERR_DEPTH		0x1	/* nesting deeper than PBW_MAX_DEPTH */
#define PBW_ERR_OVERFLOW	0x2	/* flat buffer too small: output cut */
#define PBW_ERR_UNBALANCED	0x4	/* nested_end without nested_begin */

struct pbw;

/*
 * Owner hook: the range [wptr, end) is exhausted; set a new range of at
 * least 'need' contiguous bytes (need <= PBW_FAST_ROOM) and return 0, or
 * return -1 (pbw then drops what follows into an internal sink and sets
 * PBW_ERR_OVERFLOW).
 */
typedef int (*pbw_refill_fn)(struct pbw *, size_t need);

struct pbw_nest {
	uint8_t		*size_field;	/* where the 4-byte size goes */
	uint64_t	 start;		/* pbw_written() after the size field */
};

struct pbw {
	uint8_t		*wptr;
	uint8_t		*end;
	/* The fields below are the writer's bookkeeping; read-only to users. */
	uint8_t		*range_start;	/* start of the current range */
	uint64_t	 base;		/* bytes written in earlier ranges */
	pbw_refill_fn	 refill;
	void		*owner;
	unsigned	 depth;
	/*
	 * Apart from depth: a test of both would read them as one 8-byte
	 * word right after nested_end stored depth alone, and such a load
	 * waits for the store to retire (~5% of a TrackEvent's cost).
	 */
	unsigned	 error;		/* PBW_ERR_* */
	unsigned	 ignored_depth;	/* nested_begin calls past the limit */
	struct pbw_nest	 nest[PBW_MAX_DEPTH];
	uint8_t		 sink[32];
};

/* Writes into buf[0..size) only; check error & PBW_ERR_OVERFLOW after. */
void	pbw_init_flat(struct pbw *, void *buf, size_t size);

/* Bytes of message content written so far (all ranges). */
static inline uint64_t
pbw_written(const struct pbw *w)
{
	return w->base + (uint64_t)(w->wptr - w->range_start);
}

/* Slow paths (pbw.c). */
void	pbw_append_slow(struct pbw *, const void *, size_t);
void	pbw_ensure_slow(struct pbw *, size_t need);

/* Encodes v as a varint at p; returns the end. Needs 10 bytes of room. */
static inline uint8_t *
pbw_put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/*
 * The framing of one packet in a Trace file (Trace.packet, field 1, then
 * the length): writes it to hdr and returns its size. What the service,
 * the faro command and trace_processor --live write before each packet.
 */
#define PBW_PACKET_HDR_MAX	11
static inline size_t
pbw_trace_packet_header(uint8_t hdr[PBW_PACKET_HDR_MAX], uint64_t len)
{
	hdr[0] = 0x0a;
	return (size_t)(pbw_put_varint(hdr + 1, len) - hdr);
}

/*
 * What the service vouches for, appended to a producer's packet read out
 * of a buffer: trusted_uid, trusted_packet_sequence_id, trusted_pid (when
 * > 0) and previous_packet_dropped (when set). Returns its size.
 */
#define PBW_PACKET_TRAILER_MAX	48
size_t	pbw_packet_trailer(uint8_t *out, int32_t uid, uint32_t seq_id,
	    int32_t pid, uint32_t previous_packet_dropped);

static inline uint32_t
pbw_tag(uint32_t field, enum pbw_wire_type wt)
{
	return (field << 3) | (uint32_t)wt;
}

/* Appends raw bytes (already encoded proto content). */
static inline void
pbw_append(struct pbw *w, const void *data, size_t len)
{
	if ((size_t)(w->end - w->wptr) >= len) {
		if (len)
			memcpy(w->wptr, data, len);
		w->wptr += len;
	} else
		pbw_append_slow(w, data, len);
}

static inline void
pbw_tag_varint(struct pbw *w, uint32_t tag, uint64_t v)
{
	uint8_t tmp[PBW_FAST_ROOM], *p;

	if (w->end - w->wptr >= PBW_FAST_ROOM) {
		p = pbw_put_varint(w->wptr, tag);
		w->wptr = pbw_put_varint(p, v);
		return;
	}
	p = pbw_put_varint(tmp, tag);
	p = pbw_put_varint(p, v);
	pbw_append_slow(w, tmp, (size_t)(p - tmp));
}

static inline void
pbw_varint(struct pbw *w, uint32_t field, uint64_t v)
{
	pbw_tag_varint(w, pbw_tag(field, PBW_WT_VARINT), v);
}

/* int32/int64: negative values take 10 bytes, as protobuf specifies. */
static inline void
pbw_int64(struct pbw *w, uint32_t field, int64_t v)
{
	pbw_varint(w, field, (uint64_t)v);
}

static inline void
pbw_int32(struct pbw *w, uint32_t field, int32_t v)
{
	pbw_varint(w, field, (uint64_t)(int64_t)v);
}

static inline void
pbw_bool(struct pbw *w, uint32_t field, int v)
{
	pbw_varint(w, field, v ? 1 : 0);
}

/* sint32/sint64: zigzag. */
static inline void
pbw_sint64(struct pbw *w, uint32_t field, int64_t v)
{
	pbw_varint(w, field, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static inline void
pbw_sint32(struct pbw *w, uint32_t field, int32_t v)
{
	pbw_varint(w, field, (uint32_t)(((uint32_t)v << 1) ^
	    (uint32_t)(v >> 31)));
}

static inline void
pbw_fixed32(struct pbw *w, uint32_t field, uint32_t v)
{
	uint8_t tmp[9], *p;

	p = pbw_put_varint(tmp, pbw_tag(field, PBW_WT_FIXED32));
	memcpy(p, &v, 4);		/* little-endian hosts only, like the SMB */
	pbw_append(w, tmp, (size_t)(p - tmp) + 4);
}

static inline void
pbw_fixed64(struct pbw *w, uint32_t field, uint64_t v)
{
	uint8_t tmp[13], *p;

	p = pbw_put_varint(tmp, pbw_tag(field, PBW_WT_FIXED64));
	memcpy(p, &v, 8);
	pbw_append(w, tmp, (size_t)(p - tmp) + 8);
}

static inline void
pbw_float(struct pbw *w, uint32_t field, float f)
{
	uint32_t v;

	memcpy(&v, &f, 4);
	pbw_fixed32(w, field, v);
}

static inline void
pbw_double(struct pbw *w, uint32_t field, double d)
{
	uint64_t v;

	memcpy(&v, &d, 8);
	pbw_fixed64(w, field, v);
}

/* Length-delimited bytes. */
static inline void
pbw_bytes(struct pbw *w, uint32_t field, const void *data, size_t len)
{
	pbw_tag_varint(w, pbw_tag(field, PBW_WT_BYTES), len);
	pbw_append(w, data, len);
}

static inline void
pbw_string(struct pbw *w, uint32_t field, const char *s)
{
	pbw_bytes(w, field, s, strlen(s));
}

int	pbw_nested_begin_slow(struct pbw *, uint32_t field);
void	pbw_nested_end_slow(struct pbw *);

/*
 * Opens a nested message (field 'field'). Returns 0, or -1 past
 * PBW_MAX_DEPTH (PBW_ERR_DEPTH: the nested content then lands flattened in
 * the parent; still call pbw_nested_end).
 */
static inline int
pbw_nested_begin(struct pbw *w, uint32_t field)
{
	struct pbw_nest *n;

	if (w->depth >= PBW_MAX_DEPTH || w->end - w->wptr < PBW_FAST_ROOM)
		return pbw_nested_begin_slow(w, field);
	w->wptr = pbw_put_varint(w->wptr, pbw_tag(field, PBW_WT_BYTES));
	n = &w->nest[w->depth++];
	n->size_field = w->wptr;
	memset(w->wptr, 0, PBW_SIZE_FIELD);	/* zero until filled */
	w->wptr += PBW_SIZE_FIELD;
	n->start = pbw_written(w);
	return 0;
}

/* Closes the innermost nested message and writes its size. */
static inline void
pbw_nested_end(struct pbw *w)
{
	struct pbw_nest *n;
	uint64_t size;

	if (w->ignored_depth > 0 || w->depth == 0)
		goto slow;
	n = &w->nest[w->depth - 1];
	size = pbw_written(w) - n->start;
	if (size >= SHM_PACKET_SIZE_DROP || n->size_field == NULL)
		goto slow;
	w->depth--;
	shm_write_redundant_varint(n->size_field, (uint32_t)size);
	return;
slow:
	pbw_nested_end_slow(w);
}

#endif
