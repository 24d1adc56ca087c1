/*
 * A Perfetto TraceConfig read from what a user gives: a file (or stdin)
 * holding the binary message or its text format (textproto.h), as
 * upstream's perfetto command and faro's --live take it. Shared by the
 * faro command line and trace_processor; everything read is untrusted.
 */
#ifndef FARO_TRACECONFIG_H
#define FARO_TRACECONFIG_H

#include <stddef.h>

#include "protos/perfetto/config/trace_config.pb-c.h"

/* Largest config file read (binary or text). */
#define TRACECONFIG_MAX_BYTES	(64u << 20)

/*
 * Reads all of path ("-" for stdin) into a new buffer (NUL-terminated,
 * *len excludes the NUL). Returns NULL with err set.
 */
char	*traceconfig_read_file(const char *path, size_t *len, char *err,
	    size_t errlen);

/*
 * Parses a config from buf: binary TraceConfig, or text when txt (with
 * TEXTPROTO_SKIP_UNKNOWN when lossy). A binary parse failure on printable
 * input says to add --txt.
 */
Perfetto__Protos__TraceConfig *traceconfig_parse_untrusted(const char *buf,
	    size_t len, const char *fname, int txt, int lossy, char *err,
	    size_t errlen);

#endif
