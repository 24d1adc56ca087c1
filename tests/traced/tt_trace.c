/*
 * Configs for tests, and decoding of the traces traced produces.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <zlib.h>
#include <zstd.h>

#include "traced_test.h"

Perfetto__Protos__TraceConfig *
tt_config_new(uint32_t size_kb, int discard, const char *const *ds_names)
{
	Perfetto__Protos__TraceConfig	*cfg;
	size_t				 n = 0, i;

	while (ds_names != NULL && ds_names[n] != NULL)
		n++;
	cfg = calloc(1, sizeof(*cfg));
	perfetto__protos__trace_config__init(cfg);
	cfg->n_buffers = 1;
	cfg->buffers = calloc(1, sizeof(*cfg->buffers));
	cfg->buffers[0] = calloc(1, sizeof(**cfg->buffers));
	perfetto__protos__trace_config__buffer_config__init(cfg->buffers[0]);
	cfg->buffers[0]->has_size_kb = 1;
	cfg->buffers[0]->size_kb = size_kb;
	cfg->buffers[0]->has_fill_policy = 1;
	cfg->buffers[0]->fill_policy = discard ?
	    PERFETTO__PROTOS__TRACE_CONFIG__BUFFER_CONFIG__FILL_POLICY__DISCARD :
	    PERFETTO__PROTOS__TRACE_CONFIG__BUFFER_CONFIG__FILL_POLICY__RING_BUFFER;
	cfg->n_data_sources = n;
	cfg->data_sources = calloc(n + 1, sizeof(*cfg->data_sources));
	for (i = 0; i < n; i++) {
		Perfetto__Protos__TraceConfig__DataSource *ds;

		ds = calloc(1, sizeof(*ds));
		perfetto__protos__trace_config__data_source__init(ds);
		ds->config = calloc(1, sizeof(*ds->config));
		perfetto__protos__data_source_config__init(ds->config);
		ds->config->name = strdup(ds_names[i]);
		cfg->data_sources[i] = ds;
	}
	return cfg;
}

void
tt_config_free(Perfetto__Protos__TraceConfig *cfg)
{
	/* Everything above comes from malloc: protobuf-c frees it all. */
	perfetto__protos__trace_config__free_unpacked(cfg, NULL);
}

int
tt_trace_parse(struct tt_trace *t, const uint8_t *data, size_t len)
{
	size_t	i;

	memset(t, 0, sizeof(*t));
	t->trace = perfetto__protos__trace__unpack(NULL, len, data);
	if (t->trace == NULL)
		return -1;
	t->npackets = t->trace->n_packet;
	for (i = 0; i < t->npackets; i++) {
		const Perfetto__Protos__TracePacket *p = t->trace->packet[i];

		switch (p->data_case) {
		case PERFETTO__PROTOS__TRACE_PACKET__DATA_FOR_TESTING:
			t->ntest++;
			break;
		case PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACE_CONFIG:
			t->nconfig++;
			break;
		case PERFETTO__PROTOS__TRACE_PACKET__DATA_CLOCK_SNAPSHOT:
			t->nclock++;
			break;
		case PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACE_STATS:
			t->nstats++;
			break;
		case PERFETTO__PROTOS__TRACE_PACKET__DATA_SYSTEM_INFO:
			t->nsysinfo++;
			break;
		case PERFETTO__PROTOS__TRACE_PACKET__DATA_SYNCHRONIZATION_MARKER:
			t->nsync++;
			break;
		case PERFETTO__PROTOS__TRACE_PACKET__DATA_SERVICE_EVENT:
			t->nservice_events++;
			break;
		case PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACE_UUID:
			t->nuuid++;
			break;
		default:
			break;
		}
		if (p->optional_trusted_uid_case ==
		    PERFETTO__PROTOS__TRACE_PACKET__OPTIONAL_TRUSTED_UID__NOT_SET ||
		    p->optional_trusted_packet_sequence_id_case ==
		    PERFETTO__PROTOS__TRACE_PACKET__OPTIONAL_TRUSTED_PACKET_SEQUENCE_ID__NOT_SET)
			t->bad_trusted++;
	}
	return 0;
}

void
tt_trace_free(struct tt_trace *t)
{
	if (t->trace != NULL)
		perfetto__protos__trace__free_unpacked(t->trace, NULL);
	memset(t, 0, sizeof(*t));
}

size_t
tt_trace_count(const struct tt_trace *t, const char *prefix, uint8_t *seen,
    size_t nseen)
{
	size_t	i, n = 0;

	for (i = 0; i < t->npackets; i++) {
		const Perfetto__Protos__TracePacket *p = t->trace->packet[i];

		if (p->data_case !=
		    PERFETTO__PROTOS__TRACE_PACKET__DATA_FOR_TESTING ||
		    p->for_testing->str == NULL ||
		    strcmp(p->for_testing->str, prefix) != 0)
			continue;
		n++;
		if (seen != NULL && p->for_testing->seq_value < nseen)
			seen[p->for_testing->seq_value] = 1;
	}
	return n;
}

/* One compressed payload's Trace, counted into *n; -1 if it is damaged. */
static int
tt_count_inner(const uint8_t *z, size_t zlen, int zstd, const char *prefix,
    size_t *n)
{
	struct tt_trace	 inner;
	uint8_t		*out;
	size_t		 cap = 64u << 20, olen;
	uLongf		 dl = (uLongf)cap;
	int		 rc = -1;

	if ((out = malloc(cap)) == NULL)
		return -1;
	if (zstd) {
		olen = ZSTD_decompress(out, cap, z, zlen);
		if (ZSTD_isError(olen))
			goto out;
	} else {
		if (uncompress(out, &dl, z, zlen) != Z_OK)
			goto out;
		olen = dl;
	}
	if (tt_trace_parse(&inner, out, olen) == -1)
		goto out;
	if (inner.bad_trusted == 0) {
		*n += tt_trace_count(&inner, prefix, NULL, 0);
		rc = 0;
	}
	tt_trace_free(&inner);
out:
	free(out);
	return rc;
}

ssize_t
tt_trace_count_compressed(const struct tt_trace *t, const char *prefix,
    size_t *ndeflate, size_t *nzstd)
{
	size_t	i, n = 0;

	*ndeflate = *nzstd = 0;
	for (i = 0; i < t->npackets; i++) {
		const Perfetto__Protos__TracePacket *p = t->trace->packet[i];

		if (p->data_case ==
		    PERFETTO__PROTOS__TRACE_PACKET__DATA_COMPRESSED_PACKETS) {
			(*ndeflate)++;
			if (tt_count_inner(p->compressed_packets.data,
			    p->compressed_packets.len, 0, prefix, &n) == -1)
				return -1;
		} else if (p->data_case ==
		    PERFETTO__PROTOS__TRACE_PACKET__DATA_ZSTD_COMPRESSED_PACKETS) {
			(*nzstd)++;
			if (tt_count_inner(p->zstd_compressed_packets.data,
			    p->zstd_compressed_packets.len, 1, prefix, &n) == -1)
				return -1;
		}
	}
	return (ssize_t)n;
}
