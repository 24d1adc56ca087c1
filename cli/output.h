/*
 * The trace file faro writes: opened here (never by traced, which only
 * gets the descriptor), then either handed to traced for write_into_file
 * sessions, or filled from ReadBuffers slices framed as a Trace message
 * (each packet as field 1, length-delimited).
 */
#ifndef FARO_CLI_OUTPUT_H
#define FARO_CLI_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

#include "libipc/consumer_read.h"

struct output {
	int		 fd;		/* -1 when closed */
	char		*path;		/* "-" for stdout */
	uint64_t	 bytes;		/* written by us */
	uint64_t	 packets;
	struct consumer_read rd;	/* packets joined from slices */
	uint8_t		*wbuf;		/* write buffer */
	size_t		 wlen;
};

/* Largest packet reassembled from slices; bigger ones are an error. */
#define OUTPUT_MAX_PACKET	(256u << 20)

/*
 * Opens path ("-" is stdout) for writing, mode 0600, truncating, or
 * refusing an existing file when no_clobber. Returns 0, or -1 with err.
 */
int	output_open(struct output *, const char *path, int no_clobber,
	    char *err, size_t errlen);
/*
 * Writes the packets one ReadBuffers reply completes (a packet may span
 * replies). -1 with err: a malformed reply, a packet over
 * OUTPUT_MAX_PACKET, or a failed write.
 */
int	output_reply_untrusted(struct output *, const uint8_t *reply,
	    size_t len, char *err, size_t errlen);
/* Writes one whole packet as a Trace field. */
int	output_packet(struct output *, const uint8_t *data, size_t len,
	    char *err, size_t errlen);
int	output_flush(struct output *, char *err, size_t errlen);
/* Size of the file now (it grows on its own in write_into_file mode). */
uint64_t output_file_size(const struct output *);
/*
 * Flushes and closes. With rm_if_empty (a failed run), an output that is
 * an empty regular file, still at its path, is removed.
 */
int	output_close(struct output *, int rm_if_empty, char *err,
	    size_t errlen);
const char *output_name(const struct output *);

#endif
