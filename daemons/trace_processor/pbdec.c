/*
 * Protobuf field iterator (see pbdec.h; its per-field step is inline
 * there). Hot path of the proto importer: no allocation, no copies, every
 * bound checked.
 */
#include <string.h>

#include "pbdec.h"

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
