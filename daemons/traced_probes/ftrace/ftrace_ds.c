/*
 * linux.ftrace data source instances (see ftrace_ds.h).
 */
#include <stdlib.h>

#include "ftrace_ds.h"
#include "base/log.h"
#include "ps/ps_ds.h"
#include "libipc/producer_endpoint.h"
#include "source.h"

/* TracePacket.previous_packet_dropped */
#define PACKET_PREVIOUS_DROPPED	42

struct ftrace_ds {
	struct producer_ep	*ep;
	uint64_t		 id;
	struct shm_writer	*w;
	struct ftrace_source	*src;
};

static struct pbw *
ds_packet_begin(void *arg)
{
	struct ftrace_ds *ds = arg;
	struct pbw *w = shm_writer_packet_begin(ds->w);

	/* Packets lost to a full SMB: the reader must know. */
	if (shm_writer_take_dropped(ds->w))
		pbw_varint(w, PACKET_PREVIOUS_DROPPED, 1);
	return w;
}

static void
ds_packet_end(void *arg)
{
	struct ftrace_ds *ds = arg;

	shm_writer_packet_end(ds->w);
}

/* Processes first seen in ftrace get described by process_stats. */
static void
ds_pids(void *arg, const int32_t *pids, size_t n)
{
	ps_ds_on_pids_seen(pids, n);
}

struct ftrace_ds *
ftrace_ds_start(struct ftrace_host *host, struct producer_ep *ep, uint64_t id,
    const Perfetto__Protos__DataSourceConfig *cfg)
{
	static const Perfetto__Protos__FtraceConfig empty =
	    PERFETTO__PROTOS__FTRACE_CONFIG__INIT;
	struct ftrace_sink sink;
	struct ftrace_ds *ds;
	const char *cause = NULL;
	char err[256];

	if ((ds = calloc(1, sizeof(*ds))) == NULL) {
		log_warnx("%s: out of memory", __func__);
		return NULL;
	}
	ds->ep = ep;
	ds->id = id;
	/* Stall (briefly, bounded by the endpoint) rather than drop when a
	 * drain outruns traced: the kernel buffer holds what we do not read. */
	ds->w = producer_ep_writer_new(ep, cfg->target_buffer,
	    SHM_POLICY_STALL, &cause);
	if (ds->w == NULL) {
		log_warnx("%s: instance %llu: %s", __func__,
		    (unsigned long long)id, cause);
		free(ds);
		return NULL;
	}
	sink.packet_begin = ds_packet_begin;
	sink.packet_end = ds_packet_end;
	sink.pids = ds_pids;
	sink.arg = ds;
	ds->src = ftrace_source_new(host, cfg->ftrace_config ?
	    cfg->ftrace_config : &empty, sink, err, sizeof(err));
	if (ds->src == NULL) {
		log_warnx("%s: instance %llu: %s", __func__,
		    (unsigned long long)id, err);
		producer_ep_writer_free(ep, ds->w);
		free(ds);
		return NULL;
	}
	shm_writer_flush(ds->w);
	log_debug("%s: instance %llu started", __func__,
	    (unsigned long long)id);
	return ds;
}

void
ftrace_ds_flush(struct ftrace_ds *ds)
{
	ftrace_source_drain(ds->src);
	shm_writer_flush(ds->w);
}

void
ftrace_ds_stop(struct ftrace_ds *ds)
{
	struct ftrace_cpu_counters c;

	ftrace_source_counters(ds->src, &c);
	log_debug("%s: instance %llu: %llu events, %llu pages, %llu lost "
	    "pages", __func__, (unsigned long long)ds->id,
	    (unsigned long long)c.events, (unsigned long long)c.pages,
	    (unsigned long long)c.lost_pages);
	ftrace_source_free(ds->src);
	producer_ep_writer_free(ds->ep, ds->w);
	free(ds);
}
