/*
 * ReadBuffers replies into whole packets, for every consumer (the faro
 * command, trace_processor --live, the tests).
 *
 * traced answers one ReadBuffers call with a stream of replies, each a
 * ReadBuffersResponse: a run of slices, each with its bytes and whether it
 * ends a packet. A packet may span slices and replies:
 *
 *   reply 1: [slice a1] [slice a2, last] [slice b1]
 *   reply 2: [slice b2, last]              -> packets a, b
 *
 * The replies come from traced, but their contents were written by
 * producers: every length is checked, and a packet larger than the
 * consumer's limit is skipped whole (counted), never half kept.
 */
#ifndef FARO_CONSUMER_READ_H
#define FARO_CONSUMER_READ_H

#include <stddef.h>
#include <stdint.h>

struct consumer_read {
	uint8_t		*part;		/* the packet being joined */
	size_t		 len, cap;
	size_t		 max;		/* largest packet kept */
	int		 skipping;	/* this packet went past max */
	uint64_t	 skipped;	/* packets skipped for size */
};

/* A whole packet; non-zero stops the reply and is returned. */
typedef int	 consumer_packet_fn(void *arg, const uint8_t *pkt,
		    size_t len);

void	consumer_read_init(struct consumer_read *, size_t max_packet);
void	consumer_read_free(struct consumer_read *);
/* Forgets a packet half joined (a new read, a lost connection). */
void	consumer_read_reset(struct consumer_read *);
/*
 * One reply's bytes: fn for each packet it completes. Returns 0, fn's
 * non-zero value, or -1 when the reply is no ReadBuffersResponse (or
 * memory ran out).
 */
int	consumer_read_reply_untrusted(struct consumer_read *,
	    const uint8_t *buf, size_t len, consumer_packet_fn *fn, void *arg);

#endif
