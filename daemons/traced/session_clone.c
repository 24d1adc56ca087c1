/*
 * CloneSession: a read-only copy of a running session for another
 * consumer (e.g. to save a snapshot of a long ring-buffer trace while it
 * keeps going). The caller flushes the source first; the copy gets its
 * own buffer ids, UUID and clock snapshot, and is read like any session.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "base/log.h"
#include "traced.h"
#include "libshm/trace_buffer.h"

typedef Perfetto__Protos__TraceConfig	TraceConfig;

static TraceConfig *
session_config_copy(const TraceConfig *cfg)
{
	TraceConfig	*n;
	uint8_t		*buf;
	size_t		 len;

	len = perfetto__protos__trace_config__get_packed_size(cfg);
	if ((buf = malloc(len ? len : 1)) == NULL)
		return NULL;
	perfetto__protos__trace_config__pack(cfg, buf);
	n = perfetto__protos__trace_config__unpack(NULL, len, buf);
	free(buf);
	return n;
}

/*
 * A read-only copy of src (already flushed by the caller) for consumer c:
 * its buffers are copied as they are now, src keeps running untouched.
 * When src streams into a file and the consumer passed fd, the copy goes
 * into fd at once; otherwise the consumer reads it with ReadBuffers.
 * The copy keeps src's trace filter unless skip_filter.
 */
struct tsession *
session_clone(struct tconsumer *c, struct tsession *src, int fd,
    int skip_filter, int *was_write_into_file, const char **cause)
{
	struct traced		*svc = c->svc;
	struct tsession		*s;
	struct trace_buffer	*tb;
	uint64_t		 r[2];
	size_t			 i;

	*was_write_into_file = 0;
	if (c->session != NULL) {
		*cause = "this connection already has a session";
		goto fail;
	}
	if (svc->nsessions >= TRACED_MAX_SESSIONS) {
		*cause = "too many concurrent tracing sessions";
		goto fail;
	}
	if ((s = calloc(1, sizeof(*s))) == NULL ||
	    (s->buffers = calloc(src->nbuffers ? src->nbuffers : 1,
	    sizeof(*s->buffers))) == NULL ||
	    (s->cfg = session_config_copy(src->cfg)) == NULL) {
		if (s != NULL)
			free(s->buffers);
		free(s);
		*cause = "out of memory";
		goto fail;
	}
	s->svc = svc;
	s->uid = c->uid;
	s->file.fd = -1;
	s->cloned = 1;
	s->next_seq_id = TRACED_SERVICE_SEQ_ID + 1;
	s->should_emit_sync = 1;
	s->should_emit_stats = 1;
	s->state = TS_DISABLED;
	s->disabled_notified = 1;
	s->duration_ms = src->duration_ms;
	s->start_realtime_ns = src->start_realtime_ns;
	TAILQ_INIT(&s->instances);
	TAILQ_INIT(&s->flushes);
	for (i = 0; i < src->nbuffers; i++) {
		if ((tb = trace_buffer_clone(svc->buffers[src->buffers[i]],
		    cause)) == NULL)
			break;
		if (service_buffer_add(svc, s, tb, &s->buffers[i]) == -1) {
			trace_buffer_free(tb);
			*cause = "too many buffers";
			break;
		}
		s->nbuffers++;
	}
	/* The copy is filtered like its source unless asked (upstream's
	 * skip_trace_filter, as for bugreports). */
	if (skip_filter && s->cfg->trace_filter != NULL) {
		protobuf_c_message_free_unpacked(&s->cfg->trace_filter->base,
		    NULL);
		s->cfg->trace_filter = NULL;
	}
	if (i < src->nbuffers || session_filter_setup(s, cause) == -1) {
		for (i = 0; i < s->nbuffers; i++)
			service_buffer_free(svc, s->buffers[i]);
		trace_filter_free(s->filter);
		free(s->filter_stats.discarded);
		perfetto__protos__trace_config__free_unpacked(s->cfg, NULL);
		free(s->buffers);
		free(s);
		goto fail;
	}
	arc4random_buf(r, sizeof(r));
	r[1] = (r[1] & ~0xf000ull) | 0x4000ull;
	r[0] = (r[0] & ~(0xc0ull << 56)) | (0x80ull << 56);
	s->uuid_msb = (int64_t)r[1];
	s->uuid_lsb = (int64_t)r[0];
	if (s->cfg->builtin_data_sources == NULL ||
	    !s->cfg->builtin_data_sources->disable_clock_snapshotting)
		service_packets_snapshot_clocks(s);
	s->id = ++svc->last_session_id;
	s->consumer = c;
	c->session = s;
	TAILQ_INSERT_TAIL(&svc->sessions, s, entry);
	svc->nsessions++;
	if (src->writing_file || (src->cfg->has_write_into_file &&
	    src->cfg->write_into_file)) {
		*was_write_into_file = 1;
		if (fd != -1 && trace_file_open(&s->file, fd, 0) == 0) {
			fd = -1;
			if (readback_to_file(s) == -1)
				log_warnx("%s: writing the clone failed",
				    __func__);
			trace_file_close(&s->file);
		}
	}
	if (fd != -1)
		close(fd);
	log_info("%s: session %" PRIu64 " cloned from %" PRIu64, __func__,
	    s->id, src->id);
	return s;
fail:
	if (fd != -1)
		close(fd);
	return NULL;
}
