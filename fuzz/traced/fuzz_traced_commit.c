/*
 * libFuzzer target: a producer's whole attack surface on the data path.
 * The input is split in two: the first part becomes the producer's SMB
 * contents, the rest a CommitDataRequest. traced's commit path moves and
 * patches chunks into a real session's buffer, scrapes the SMB, and the
 * session is read back through the packet checks.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "base/log.h"
#include "traced.h"
#include "protos/perfetto/common/commit_data_request.pb-c.h"
#include "protos/perfetto/common/data_source_descriptor.pb-c.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static int
null_sink(void *arg, const uint8_t *b, size_t bl, const uint8_t *t,
    size_t tl)
{
	size_t	*n = arg;

	(void)b;
	(void)t;
	*n += bl + tl;
	return 0;
}

/* Not a CommitDataRequest: move every chunk of the SMB instead. */
static void
commit_everything(struct tproducer *p)
{
	Perfetto__Protos__CommitDataRequest req =
	    PERFETTO__PROTOS__COMMIT_DATA_REQUEST__INIT;
	Perfetto__Protos__CommitDataRequest__ChunksToMove m, *mp = &m;

	req.n_chunks_to_move = 1;
	req.chunks_to_move = &mp;
	for (uint32_t page = 0; page < p->smb->abi.num_pages; page++)
		for (uint32_t idx = 0; idx < 14; idx++) {
			perfetto__protos__commit_data_request__chunks_to_move__init(
			    &m);
			m.has_page = m.has_chunk = m.has_target_buffer = 1;
			m.page = page;
			m.chunk = idx;
			m.target_buffer = 1;
			commit_data_untrusted(p, &req);
		}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static struct event_base	*base;
	struct traced			 svc;
	struct tproducer		*p;
	struct tconsumer		*c;
	Perfetto__Protos__TraceConfig	*cfg;
	Perfetto__Protos__DataSourceDescriptor d =
	    PERFETTO__PROTOS__DATA_SOURCE_DESCRIPTOR__INIT;
	Perfetto__Protos__CommitDataRequest *req;
	const char			*cause;
	uint8_t				 desc[64];
	size_t				 dlen, split, out = 0;
	int				 more;

	if (base == NULL) {
		log_init("fuzz", 1, -1);
		base = event_base_new();
	}
	if (len < 2)
		return 0;
	split = ((size_t)data[0] << 8 | data[1]) % (len - 1);
	data += 2;
	len -= 2;

	service_init(&svc, base);
	p = service_producer_connect(&svc, 1, 1000, 1, "fuzz", &cause);
	c = service_consumer_connect(&svc, 2, 0, 1);
	d.name = (char *)"fuzz.ds";
	dlen = perfetto__protos__data_source_descriptor__pack(&d, desc);
	service_datasource_register(p, desc, dlen, &cause);
	cfg = calloc(1, sizeof(*cfg));
	perfetto__protos__trace_config__init(cfg);
	cfg->n_buffers = 1;
	cfg->buffers = calloc(1, sizeof(*cfg->buffers));
	cfg->buffers[0] = calloc(1, sizeof(**cfg->buffers));
	perfetto__protos__trace_config__buffer_config__init(cfg->buffers[0]);
	cfg->buffers[0]->has_size_kb = 1;
	cfg->buffers[0]->size_kb = 64;
	cfg->n_data_sources = 1;
	cfg->data_sources = calloc(1, sizeof(*cfg->data_sources));
	cfg->data_sources[0] = calloc(1, sizeof(**cfg->data_sources));
	perfetto__protos__trace_config__data_source__init(cfg->data_sources[0]);
	cfg->data_sources[0]->config = calloc(1,
	    sizeof(*cfg->data_sources[0]->config));
	perfetto__protos__data_source_config__init(
	    cfg->data_sources[0]->config);
	cfg->data_sources[0]->config->name = strdup("fuzz.ds");
	if (session_enable(c, cfg, -1, &cause) == 0 && p->smb != NULL) {
		/* Writer 1 of buffer 1 is registered, as a real app would. */
		service_writer_register(p, 1, 1);
		memcpy(p->smb->region.base, data,
		    split < p->smb->region.size ? split : p->smb->region.size);
		req = perfetto__protos__commit_data_request__unpack(NULL,
		    len - split, data + split);
		if (req != NULL) {
			commit_data_untrusted(p, req);
			perfetto__protos__commit_data_request__free_unpacked(req,
			    NULL);
		} else
			commit_everything(p);
		commit_scrape(p, c->session);
		do {
			if (readback_session(c->session, 1 << 20, null_sink,
			    &out, &more) == -1)
				break;
		} while (more);
	}
	service_shutdown(&svc);
	return 0;
}
