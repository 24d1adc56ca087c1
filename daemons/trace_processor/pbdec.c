/*
 * Protobuf field iterator (see pbdec.h). Hot path of the proto importer:
 * no allocation, no copies, every bound checked.
 */
#include <string.h>

#include "pbdec.h"

void
pb_init(struct pb *it, const void *buf, size_t len)
{
	it->p = buf;
	it->end = it->p + len;
	it->err = 0;
	if (buf == NULL)
		it->p = it->end = NULL;
}

const uint8_t *
pb_varint_untrusted(const uint8_t *p, const uint8_t *end, uint64_t *out)
{
	uint64_t v = 0;
	unsigned shift = 0;

	/* 10 bytes carry 64 bits; padded varints stay within that. */
	while (p < end && shift < 70) {
		uint8_t b = *p++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		if ((b & 0x80) == 0) {
			*out = v;
			return p;
		}
		shift += 7;
	}
	return NULL;
}

/* Most tags, ids and lengths fit one byte: read those without a call. */
static inline const uint8_t *
varint(const uint8_t *p, const uint8_t *end, uint64_t *out)
{
	if (p < end && *p < 0x80) {
		*out = *p;
		return p + 1;
	}
	return pb_varint_untrusted(p, end, out);
}

int
pb_next_untrusted(struct pb *it, struct pb_field *f)
{
	uint64_t key, v;
	const uint8_t *p;

	if (it->err)
		return -1;
	if (it->p >= it->end)
		return 0;
	if ((p = varint(it->p, it->end, &key)) == NULL)
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
		if ((p = varint(p, it->end, &f->u)) == NULL)
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
		if ((p = varint(p, it->end, &v)) == NULL)
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

void
pb_packed_init(struct pb_packed *pk, const struct pb_field *f)
{
	pk->p = f->data;
	pk->end = f->data + f->len;
	pk->err = 0;
	if (f->data == NULL)
		pk->p = pk->end = NULL;
}

int
pb_packed_varint_untrusted(struct pb_packed *pk, uint64_t *v)
{
	const uint8_t *p;

	if (pk->err || pk->p >= pk->end)
		return 0;
	if ((p = pb_varint_untrusted(pk->p, pk->end, v)) == NULL) {
		pk->err = 1;
		return 0;
	}
	pk->p = p;
	return 1;
}

size_t
pb_repeated_varint_untrusted(const uint8_t *msg, size_t len, uint32_t id,
    uint64_t *out, size_t max)
{
	struct pb it;
	struct pb_field f;
	struct pb_packed pk;
	size_t n = 0;

	pb_init(&it, msg, len);
	while (n < max && pb_next_untrusted(&it, &f) == 1) {
		if (f.id != id)
			continue;
		if (f.wire == PB_VARINT) {
			out[n++] = f.u;
		} else if (f.wire == PB_LEN) {
			pb_packed_init(&pk, &f);
			while (n < max && pb_packed_varint_untrusted(&pk,
			    &out[n]))
				n++;
		}
	}
	return n;
}

int
pb_packed_fixed64_untrusted(struct pb_packed *pk, uint64_t *v)
{
	if (pk->err || pk->p >= pk->end)
		return 0;
	if (pk->end - pk->p < 8) {
		pk->err = 1;
		return 0;
	}
	memcpy(v, pk->p, 8);
	pk->p += 8;
	return 1;
}

int
pb_last_untrusted(const uint8_t *buf, size_t len, uint32_t id,
    struct pb_field *f)
{
	struct pb it;
	struct pb_field x;
	int found = 0;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &x) == 1)
		if (x.id == id) {
			*f = x;
			found = 1;
		}
	return found;
}
