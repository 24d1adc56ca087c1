/*
 * ReadBuffers replies into whole packets: see consumer_read.h.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "protos/perfetto/ipc/consumer_port.pb-c.h"

#include "consumer_read.h"

void
consumer_read_init(struct consumer_read *r, size_t max_packet)
{
	memset(r, 0, sizeof(*r));
	r->max = max_packet;
}

void
consumer_read_free(struct consumer_read *r)
{
	free(r->part);
	memset(r, 0, sizeof(*r));
}

void
consumer_read_reset(struct consumer_read *r)
{
	r->len = 0;
	r->skipping = 0;
}

/* Appends a slice to the packet being joined; -1: out of memory. */
static int
read_append(struct consumer_read *r, const uint8_t *data, size_t len)
{
	size_t cap;
	uint8_t *np;

	if (r->skipping)
		return 0;
	if (len > r->max - r->len) {
		r->skipping = 1;
		return 0;
	}
	if (r->len + len > r->cap) {
		cap = r->cap ? r->cap : 4096;
		while (cap < r->len + len)
			cap *= 2;
		if ((np = realloc(r->part, cap)) == NULL)
			return -1;
		r->part = np;
		r->cap = cap;
	}
	if (len > 0)
		memcpy(r->part + r->len, data, len);
	r->len += len;
	return 0;
}

int
consumer_read_reply_untrusted(struct consumer_read *r, const uint8_t *buf,
    size_t len, consumer_packet_fn *fn, void *arg)
{
	Perfetto__Protos__ReadBuffersResponse *res;
	const Perfetto__Protos__ReadBuffersResponse__Slice *sl;
	size_t i;
	int rc = 0;

	if ((res = perfetto__protos__read_buffers_response__unpack(NULL, len,
	    buf)) == NULL)
		return -1;
	for (i = 0; i < res->n_slices && rc == 0; i++) {
		sl = res->slices[i];
		/* The common case: a packet in one slice, handed over as is. */
		if (r->len == 0 && !r->skipping && sl->last_slice_for_packet &&
		    sl->data.len <= r->max) {
			rc = fn(arg, sl->data.data, sl->data.len);
			continue;
		}
		if (read_append(r, sl->data.data, sl->data.len) == -1) {
			rc = -1;
			break;
		}
		if (!sl->last_slice_for_packet)
			continue;
		if (r->skipping)
			r->skipped++;
		else
			rc = fn(arg, r->part, r->len);
		consumer_read_reset(r);
	}
	perfetto__protos__read_buffers_response__free_unpacked(res, NULL);
	return rc;
}
