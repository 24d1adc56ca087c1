/*
 * pbw slow paths: crossing into the next range, nested messages.
 */
#include "config.h"

#include <string.h>

#include "pbw.h"
#include "shm_abi.h"

void
pbw_init_flat(struct pbw *w, void *buf, size_t size)
{
	memset(w, 0, sizeof(*w));
	w->wptr = w->range_start = buf;
	w->end = w->wptr + size;
}

/*
 * Moves to the next range, keeping the running byte count. With no owner
 * hook (flat buffer) or when the owner has nothing, output goes to the sink
 * and is lost: the error bit says so.
 */
static void
pbw_next_range(struct pbw *w, size_t need)
{
	w->base += (uint64_t)(w->wptr - w->range_start);
	if (w->refill == NULL || w->refill(w, need) == -1 ||
	    (size_t)(w->end - w->wptr) < need) {
		w->error |= PBW_ERR_OVERFLOW;
		w->wptr = w->sink;
		w->end = w->sink + sizeof(w->sink);
	}
	w->range_start = w->wptr;
}

void
pbw_append_slow(struct pbw *w, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t room;

	for (;;) {
		room = (size_t)(w->end - w->wptr);
		if (room > len)
			room = len;
		if (room) {
			memcpy(w->wptr, p, room);
			w->wptr += room;
			p += room;
			len -= room;
		}
		if (len == 0)
			return;
		pbw_next_range(w, 1);
	}
}

void
pbw_ensure_slow(struct pbw *w, size_t need)
{
	if ((size_t)(w->end - w->wptr) < need)
		pbw_next_range(w, need);
}

int
pbw_nested_begin_slow(struct pbw *w, uint32_t field)
{
	uint8_t tag[5], *p;
	struct pbw_nest *n;

	if (w->depth >= PBW_MAX_DEPTH) {
		w->ignored_depth++;
		w->error |= PBW_ERR_DEPTH;
		return -1;
	}
	p = pbw_put_varint(tag, pbw_tag(field, PBW_WT_BYTES));
	pbw_append(w, tag, (size_t)(p - tag));
	/* The size field must be contiguous: it may become one 4-byte patch. */
	if (w->end - w->wptr < PBW_SIZE_FIELD)
		pbw_ensure_slow(w, PBW_SIZE_FIELD);
	n = &w->nest[w->depth++];
	n->size_field = w->wptr;
	memset(w->wptr, 0, PBW_SIZE_FIELD);
	w->wptr += PBW_SIZE_FIELD;
	n->start = pbw_written(w);
	return 0;
}

void
pbw_nested_end_slow(struct pbw *w)
{
	struct pbw_nest *n;
	uint64_t size;

	if (w->ignored_depth > 0) {
		w->ignored_depth--;
		return;
	}
	if (w->depth == 0) {
		w->error |= PBW_ERR_UNBALANCED;
		return;
	}
	n = &w->nest[--w->depth];
	size = pbw_written(w) - n->start;
	if (size > SHM_PACKET_SIZE_DROP - 1) {
		/* Cannot be expressed in 4 bytes; no decoder would take it. */
		w->error |= PBW_ERR_OVERFLOW;
		size = 0;
	}
	if (n->size_field != NULL)
		shm_write_redundant_varint(n->size_field, (uint32_t)size);
}

size_t
pbw_packet_trailer(uint8_t *out, int32_t uid, uint32_t seq_id, int32_t pid,
    uint32_t previous_packet_dropped)
{
	uint8_t	*p = out;

	/* int32 fields are sign-extended varints on the wire. */
	p = pbw_put_varint(p, (3 << 3) | 0);
	p = pbw_put_varint(p, (uint64_t)(int64_t)uid);
	p = pbw_put_varint(p, (10 << 3) | 0);
	p = pbw_put_varint(p, seq_id);
	if (pid > 0) {
		p = pbw_put_varint(p, (79 << 3) | 0);
		p = pbw_put_varint(p, (uint64_t)(int64_t)pid);
	}
	if (previous_packet_dropped) {
		p = pbw_put_varint(p, (42 << 3) | 0);
		p = pbw_put_varint(p, 1);
	}
	return (size_t)(p - out);
}
