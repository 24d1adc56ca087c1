/*
 * A zero-allocation protobuf reader for trace data.
 *
 * A struct pb is a cursor over one message's bytes; pb_next() yields one
 * field at a time:
 *
 *   struct pb it; struct pb_field f;
 *   pb_init(&it, buf, len);
 *   while (pb_next_untrusted(&it, &f) == 1)
 *       switch (f.id) { case 1: x = f.u; break; ... }
 *   if (it.err) -> the message was truncated or malformed
 *
 * Every length is checked against the remaining bytes, varints may be
 * padded up to 10 bytes (Perfetto writers pad nested lengths), unknown
 * fields and wire types are skipped, group wire types are refused. On a
 * malformed field the iteration stops and it.err is set: fields decoded
 * before it stay valid, nothing after it is trusted.
 */
#ifndef FARO_PBDEC_H
#define FARO_PBDEC_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum pb_wire {
	PB_VARINT = 0,
	PB_FIXED64 = 1,
	PB_LEN = 2,
	PB_FIXED32 = 5,
};

struct pb {
	const uint8_t	*p;
	const uint8_t	*end;
	int		 err;
};

struct pb_field {
	uint32_t	 id;
	uint8_t		 wire;
	uint64_t	 u;		/* varint and fixed values */
	const uint8_t	*data;		/* PB_LEN payload */
	size_t		 len;
};

/* The last occurrence of field id in a message (what a decoder's has_X
 * reads): 1 with it in f, else 0. */
int	pb_last_untrusted(const uint8_t *, size_t, uint32_t id,
	    struct pb_field *);
/* Reads one varint; NULL when truncated or longer than 10 bytes. */
const uint8_t *pb_varint_untrusted(const uint8_t *, const uint8_t *,
	    uint64_t *);

static inline void
pb_init(struct pb *it, const void *buf, size_t len)
{
	it->p = buf;
	it->end = it->p + len;
	it->err = 0;
	if (buf == NULL)
		it->p = it->end = NULL;
}

/* Most tags, ids and lengths fit one byte: those are read without a
 * call. */
static inline const uint8_t *
pb_varint_fast(const uint8_t *p, const uint8_t *end, uint64_t *out)
{
	if (p < end && *p < 0x80) {
		*out = *p;
		return p + 1;
	}
	return pb_varint_untrusted(p, end, out);
}

/* 1: a field; 0: end of message; -1: malformed (err set). Inline: it is
 * the step of every message read. */
static inline int
pb_next_untrusted(struct pb *it, struct pb_field *f)
{
	uint64_t key, v;
	const uint8_t *p;

	if (it->err)
		return -1;
	if (it->p >= it->end)
		return 0;
	if ((p = pb_varint_fast(it->p, it->end, &key)) == NULL)
		goto bad;
	if ((key >> 3) == 0 || (key >> 3) > 0x1fffffff)
		goto bad;
	f->id = (uint32_t)(key >> 3);
	f->wire = key & 7;
	f->data = NULL;
	f->len = 0;
	f->u = 0;
	switch (f->wire) {
	case PB_VARINT:
		if ((p = pb_varint_fast(p, it->end, &f->u)) == NULL)
			goto bad;
		break;
	case PB_FIXED64:
		if (it->end - p < 8)
			goto bad;
		memcpy(&v, p, 8);
		f->u = v;	/* little-endian hosts only, as the SMB ABI */
		p += 8;
		break;
	case PB_FIXED32: {
		uint32_t w;

		if (it->end - p < 4)
			goto bad;
		memcpy(&w, p, 4);
		f->u = w;
		p += 4;
		break;
	}
	case PB_LEN:
		if ((p = pb_varint_fast(p, it->end, &v)) == NULL)
			goto bad;
		if (v > (uint64_t)(it->end - p))
			goto bad;
		f->data = p;
		f->len = (size_t)v;
		p += v;
		break;
	default:
		/* Groups (3, 4) and 6, 7 are not used by any trace proto. */
		goto bad;
	}
	it->p = p;
	return 1;
bad:
	it->err = 1;
	it->p = it->end;
	return -1;
}

static inline int64_t
pb_zigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static inline double
pb_double(const struct pb_field *f)
{
	union { uint64_t u; double d; } c;

	c.u = f->u;
	return c.d;
}

static inline float
pb_float(const struct pb_field *f)
{
	union { uint32_t u; float d; } c;

	c.u = (uint32_t)f->u;
	return c.d;
}

/*
 * Packed repeated scalars: iterate varints (or fixed) inside f->data.
 * A non-packed repeated scalar arrives as separate fields instead; callers
 * accept both.
 */
struct pb_packed {
	const uint8_t	*p;
	const uint8_t	*end;
	int		 err;
};

void	pb_packed_init(struct pb_packed *, const struct pb_field *);
int	pb_packed_varint_untrusted(struct pb_packed *, uint64_t *);
int	pb_packed_fixed64_untrusted(struct pb_packed *, uint64_t *);
/* The values of repeated varint field id of a message, packed or not, in
 * order: at most max of them into out; returns how many. */
size_t	pb_repeated_varint_untrusted(const uint8_t *, size_t, uint32_t id,
	    uint64_t *out, size_t max);

#endif
