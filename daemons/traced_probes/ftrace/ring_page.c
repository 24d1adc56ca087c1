/*
 * Ring-buffer page iteration (layout in ring_page.h).
 */
#include <string.h>

#include "ring_page.h"

#define COMMIT_SIZE_MASK	((1u << 27) - 1)
#define COMMIT_MISSED		(1u << 31)
#define COMMIT_MISSED_STORED	(1u << 30)

#define TYPE_PADDING		29
#define TYPE_TIME_EXTEND	30
#define TYPE_TIME_STAMP		31
#define TS_ABS_BITS		59

static inline uint32_t
rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t
rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

int
ring_page_open_untrusted(struct ring_page *rp,
    const struct ftrace_page_layout *pl, const uint8_t *page, size_t len)
{
	uint32_t commit;
	size_t room;

	memset(rp, 0, sizeof(*rp));
	rp->lost_count = -1;
	if (len < pl->data_offset)
		return FTRACE_STATUS_PARTIAL_PAGE_READ;
	rp->base_ts = rd64(page + pl->ts_offset);
	/* The flags live in the low 32 bits (little-endian). */
	commit = rd32(page + pl->commit_offset);
	rp->data_len = commit & COMMIT_SIZE_MASK;
	rp->lost = (commit & COMMIT_MISSED) != 0;
	room = len - pl->data_offset;
	if (rp->data_len > room)
		return FTRACE_STATUS_ABI_INVALID_PAGE_HEADER;
	if ((commit & COMMIT_MISSED_STORED) &&
	    room - rp->data_len >= pl->commit_size) {
		const uint8_t *m = page + pl->data_offset + rp->data_len;

		rp->lost_count = pl->commit_size == 8 ? (int64_t)rd64(m) :
		    (int64_t)rd32(m);
	}
	rp->p = page + pl->data_offset;
	rp->end = rp->p + rp->data_len;
	rp->ts = rp->base_ts;
	return 0;
}

int
ring_page_next_untrusted(struct ring_page *rp, struct ring_record *rec)
{
	uint32_t hdr, type_len, delta, len;
	uint64_t abs;

	for (;;) {
		if (rp->p >= rp->end)
			return 0;
		if (rp->end - rp->p < 4)
			return FTRACE_STATUS_ABI_SHORT_EVENT_HEADER;
		hdr = rd32(rp->p);
		type_len = hdr & 0x1f;
		delta = hdr >> 5;
		rp->p += 4;
		switch (type_len) {
		case TYPE_PADDING:
			if (delta == 0) {
				/* Rest of the page is unused. */
				rp->p = rp->end;
				return 0;
			}
			if (rp->end - rp->p < 4)
				return FTRACE_STATUS_ABI_SHORT_PADDING_LENGTH;
			len = rd32(rp->p);
			if (len < 4 || len > (size_t)(rp->end - rp->p))
				return FTRACE_STATUS_ABI_INVALID_PADDING_LENGTH;
			/* A discarded record; the kernel does not add its
			 * delta to the clock either. */
			rp->p += len;
			continue;
		case TYPE_TIME_EXTEND:
			if (rp->end - rp->p < 4)
				return FTRACE_STATUS_ABI_SHORT_TIME_EXTEND;
			rp->ts += (uint64_t)rd32(rp->p) << 27 | delta;
			rp->p += 4;
			continue;
		case TYPE_TIME_STAMP:
			if (rp->end - rp->p < 4)
				return FTRACE_STATUS_ABI_SHORT_TIME_STAMP;
			abs = (uint64_t)rd32(rp->p) << 27 | delta;
			/* Only the low 59 bits are stored. */
			rp->ts = (rp->ts & ~((1ull << TS_ABS_BITS) - 1)) | abs;
			rp->p += 4;
			continue;
		case 0:
			if (rp->end - rp->p < 4)
				return FTRACE_STATUS_ABI_SHORT_DATA_LENGTH;
			len = rd32(rp->p);
			if (len < 4)
				return FTRACE_STATUS_ABI_ZERO_DATA_LENGTH;
			if (len > (size_t)(rp->end - rp->p))
				return FTRACE_STATUS_ABI_INVALID_DATA_LENGTH;
			rp->ts += delta;
			rec->ts = rp->ts;
			rec->data = rp->p + 4;
			rec->len = len - 4;
			rp->p += len;
			return 1;
		default:
			len = type_len * 4;
			if (len > (size_t)(rp->end - rp->p))
				return FTRACE_STATUS_ABI_END_OVERFLOW;
			rp->ts += delta;
			rec->ts = rp->ts;
			rec->data = rp->p;
			rec->len = len;
			rp->p += len;
			return 1;
		}
	}
}
