/* The trace file: opening, packet framing and writing; see output.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/output.h"
#include "libshm/pbw.h"

#define WBUF_SIZE	(256u * 1024)

int
output_open(struct output *out, const char *path, int no_clobber, char *err,
    size_t errlen)
{
	int flags = O_RDWR | O_CREAT | O_CLOEXEC |
	    (no_clobber ? O_EXCL : O_TRUNC);

	memset(out, 0, sizeof(*out));
	out->fd = -1;
	consumer_read_init(&out->rd, OUTPUT_MAX_PACKET);
	if ((out->path = strdup(path)) == NULL ||
	    (out->wbuf = malloc(WBUF_SIZE)) == NULL) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (strcmp(path, "-") == 0) {
		if ((out->fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3)) == -1) {
			snprintf(err, errlen, "cannot use stdout for the "
			    "trace: %s", strerror(errno));
			goto fail;
		}
		return 0;
	}
	if ((out->fd = open(path, flags, 0600)) == -1) {
		if (errno == EEXIST)
			snprintf(err, errlen, "Output file '%s' already exists, "
			    "refusing to overwrite due to '--no-clobber'", path);
		else
			snprintf(err, errlen, "Cannot open output file '%s': "
			    "%s", path, strerror(errno));
		goto fail;
	}
	return 0;
fail:
	free(out->path);
	free(out->wbuf);
	memset(out, 0, sizeof(*out));
	out->fd = -1;
	return -1;
}

const char *
output_name(const struct output *out)
{
	return out->path == NULL ? "(none)" :
	    strcmp(out->path, "-") == 0 ? "stdout" : out->path;
}

static int
write_all(struct output *out, const uint8_t *p, size_t n, char *err,
    size_t errlen)
{
	ssize_t w;

	while (n > 0) {
		w = write(out->fd, p, n);
		if (w == -1 && errno == EINTR)
			continue;
		if (w == -1) {
			snprintf(err, errlen, "Cannot write to %s: %s",
			    output_name(out), strerror(errno));
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int
output_flush(struct output *out, char *err, size_t errlen)
{
	if (out->wlen == 0)
		return 0;
	if (write_all(out, out->wbuf, out->wlen, err, errlen) == -1)
		return -1;
	out->wlen = 0;
	return 0;
}

static int
buffered_write(struct output *out, const uint8_t *p, size_t n, char *err,
    size_t errlen)
{
	if (out->wlen + n > WBUF_SIZE) {
		if (output_flush(out, err, errlen) == -1)
			return -1;
		if (n >= WBUF_SIZE)
			return write_all(out, p, n, err, errlen);
	}
	if (n > 0)
		memcpy(out->wbuf + out->wlen, p, n);
	out->wlen += n;
	return 0;
}

int
output_packet(struct output *out, const uint8_t *data, size_t len, char *err,
    size_t errlen)
{
	uint8_t hdr[PBW_PACKET_HDR_MAX];
	size_t h = pbw_trace_packet_header(hdr, len);

	if (buffered_write(out, hdr, h, err, errlen) == -1 ||
	    buffered_write(out, data, len, err, errlen) == -1)
		return -1;
	out->bytes += h + len;
	out->packets++;
	return 0;
}

struct output_write {
	struct output	*out;
	char		*err;
	size_t		 errlen;
};

static int
output_write_packet(void *arg, const uint8_t *pkt, size_t len)
{
	struct output_write *w = arg;

	return output_packet(w->out, pkt, len, w->err, w->errlen);
}

int
output_reply_untrusted(struct output *out, const uint8_t *reply, size_t len,
    char *err, size_t errlen)
{
	struct output_write w = { out, err, errlen };
	uint64_t skipped = out->rd.skipped;
	int rc;

	err[0] = '\0';
	rc = consumer_read_reply_untrusted(&out->rd, reply, len,
	    output_write_packet, &w);
	if (rc == -1 && err[0] == '\0')
		snprintf(err, errlen, "traced sent a malformed reply");
	else if (rc == 0 && out->rd.skipped != skipped) {
		snprintf(err, errlen, "traced sent a packet larger than %u "
		    "bytes", OUTPUT_MAX_PACKET);
		rc = -1;
	}
	return rc;
}

uint64_t
output_file_size(const struct output *out)
{
	struct stat st;

	if (out->fd == -1 || fstat(out->fd, &st) == -1 ||
	    !S_ISREG(st.st_mode))
		return out->bytes;
	return (uint64_t)st.st_size;
}

/*
 * Removes the output file if it is an empty regular file, and still the
 * one we opened: never a device (faro -o /dev/null as root) nor a file
 * put at the path since.
 */
static void
remove_if_empty(const struct output *out)
{
	struct stat fst, pst;

	if (strcmp(out->path, "-") == 0 || fstat(out->fd, &fst) == -1 ||
	    !S_ISREG(fst.st_mode) || fst.st_size != 0 ||
	    lstat(out->path, &pst) == -1 || pst.st_dev != fst.st_dev ||
	    pst.st_ino != fst.st_ino)
		return;
	unlink(out->path);
}

int
output_close(struct output *out, int rm_if_empty, char *err, size_t errlen)
{
	int rc = 0;

	if (out->fd != -1) {
		if (output_flush(out, err, errlen) == -1)
			rc = -1;
		if (rm_if_empty)
			remove_if_empty(out);
		if (close(out->fd) == -1 && rc == 0) {
			snprintf(err, errlen, "Cannot write to %s: %s",
			    output_name(out), strerror(errno));
			rc = -1;
		}
	}
	free(out->path);
	consumer_read_free(&out->rd);
	free(out->wbuf);
	memset(out, 0, sizeof(*out));
	out->fd = -1;
	return rc;
}
