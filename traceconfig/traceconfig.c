/*
 * A TraceConfig from a file or bytes: see traceconfig.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "traceconfig/textproto.h"
#include "traceconfig/traceconfig.h"

typedef Perfetto__Protos__TraceConfig TraceConfig;

char *
traceconfig_read_file(const char *path, size_t *lenp, char *err, size_t errlen)
{
	const char *name = strcmp(path, "-") == 0 ? "stdin" : path;
	size_t len = 0, cap = 0;
	char *buf = NULL, *nb;
	ssize_t n;
	int fd;

	if (strcmp(path, "-") == 0)
		fd = STDIN_FILENO;
	else if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "Could not open config %s: %s", path,
		    strerror(errno));
		return NULL;
	}
	for (;;) {
		if (len + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 16384;
			if ((nb = realloc(buf, cap)) == NULL) {
				snprintf(err, errlen, "reading %s: out of "
				    "memory", name);
				goto fail;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			snprintf(err, errlen, "Could not read config %s: %s",
			    name, strerror(errno));
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > TRACECONFIG_MAX_BYTES) {
			snprintf(err, errlen, "config %s is larger than %u "
			    "bytes", name, TRACECONFIG_MAX_BYTES);
			goto fail;
		}
	}
	if (fd != STDIN_FILENO)
		close(fd);
	if (buf == NULL && (buf = malloc(1)) == NULL) {
		snprintf(err, errlen, "reading %s: out of memory", name);
		return NULL;
	}
	buf[len] = '\0';
	*lenp = len;
	return buf;
fail:
	if (fd != STDIN_FILENO)
		close(fd);
	free(buf);
	return NULL;
}

/* Text a person typed: printable ASCII and white space only. */
static int
looks_like_text(const char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)buf[i];

		if (!((c >= 32 && c <= 126) || (c >= 9 && c <= 13)))
			return 0;
	}
	return 1;
}

TraceConfig *
traceconfig_parse_untrusted(const char *buf, size_t len, const char *fname,
    int txt, int lossy, char *err, size_t errlen)
{
	ProtobufCMessage *m;

	if (txt || lossy)
		return (TraceConfig *)textproto_parse_untrusted(
		    &perfetto__protos__trace_config__descriptor, buf, len,
		    fname, lossy ? TEXTPROTO_SKIP_UNKNOWN : 0, err, errlen);
	if (len == 0) {
		snprintf(err, errlen, "The TraceConfig is empty (%s)", fname);
		return NULL;
	}
	m = protobuf_c_message_unpack(&perfetto__protos__trace_config__descriptor,
	    NULL, len, (const uint8_t *)buf);
	if (m == NULL) {
		if (looks_like_text(buf, len))
			snprintf(err, errlen, "The trace config %s is invalid: "
			    "it looks like a text config but a binary "
			    "TraceConfig is expected; try adding --txt", fname);
		else
			snprintf(err, errlen, "The trace config %s is invalid: "
			    "not a binary TraceConfig", fname);
		return NULL;
	}
	return (TraceConfig *)m;
}
