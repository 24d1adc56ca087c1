/*
 * Packets the service writes into a trace itself, on its own sequence
 * (trusted_packet_sequence_id 1, trusted_uid of traced): clock snapshots,
 * the synchronisation marker, the TraceConfig, the trace UUID, system
 * info, received triggers, lifecycle events and, at the end, TraceStats.
 * The order at the head of a read follows upstream so that readers that
 * expect the clock snapshot first (trace_processor) find it there.
 */
#include "config.h"

#include <sys/utsname.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "traced.h"
#include "libshm/trace_buffer.h"
#include "protos/perfetto/trace/trace_packet.pb-c.h"

typedef Perfetto__Protos__TracePacket	TracePacket;

/* 16 bytes readers scan for to resynchronise in a damaged trace. */
static const uint8_t service_packets_sync_marker[16] = {
	0x82, 0x47, 0x7a, 0x76, 0xb2, 0x8d, 0x42, 0xba,
	0x81, 0xdc, 0x33, 0x32, 0x6d, 0x57, 0xa0, 0x79,
};

#define SVCPKT_MAX_PENDING_CLOCKS	16

static void
service_packets_header(const struct tsession *s, TracePacket *pkt)
{
	pkt->optional_trusted_uid_case =
	    PERFETTO__PROTOS__TRACE_PACKET__OPTIONAL_TRUSTED_UID_TRUSTED_UID;
	pkt->trusted_uid = (int32_t)s->svc->uid;
	pkt->optional_trusted_packet_sequence_id_case =
	    PERFETTO__PROTOS__TRACE_PACKET__OPTIONAL_TRUSTED_PACKET_SEQUENCE_ID_TRUSTED_PACKET_SEQUENCE_ID;
	pkt->trusted_packet_sequence_id = TRACED_SERVICE_SEQ_ID;
}

/* Packs and hands one packet to the sink. */
static int
service_packets_emit(const TracePacket *pkt, packet_sink_fn *sink, void *arg,
    size_t *bytes)
{
	uint8_t	*buf;
	size_t	 len;
	int	 rc;

	len = perfetto__protos__trace_packet__get_packed_size(pkt);
	if ((buf = malloc(len ? len : 1)) == NULL)
		return 0;	/* lose this one packet, not the trace */
	perfetto__protos__trace_packet__pack(pkt, buf);
	rc = sink(arg, buf, len, NULL, 0);
	free(buf);
	if (bytes != NULL)
		*bytes += len;
	return rc;
}

void
service_packets_snapshot_clocks(struct tsession *s)
{
	static const struct {
		clockid_t	clk;
		uint32_t	id;
	} clocks[] = {
		{ CLOCK_BOOTTIME,		6 },
		{ CLOCK_REALTIME_COARSE,	2 },
		{ CLOCK_MONOTONIC_COARSE,	4 },
		{ CLOCK_MONOTONIC_RAW,		5 },
		{ CLOCK_REALTIME,		1 },
		{ CLOCK_MONOTONIC,		3 },
	};
	Perfetto__Protos__ClockSnapshot		 cs =
	    PERFETTO__PROTOS__CLOCK_SNAPSHOT__INIT;
	Perfetto__Protos__ClockSnapshot__Clock	 c[6], *cp[6];
	TracePacket				 pkt =
	    PERFETTO__PROTOS__TRACE_PACKET__INIT;
	const Perfetto__Protos__TraceConfig__BuiltinDataSource *b =
	    s->cfg->builtin_data_sources;
	uint8_t					*n;
	size_t					 i, len, count = 0, off;

	/* Keep the pending list bounded: drop the oldest snapshot. */
	for (off = 0; off < s->pending_clocks_len; count++) {
		uint32_t l;

		memcpy(&l, s->pending_clocks + off, sizeof(l));
		off += sizeof(l) + l;
	}
	if (count >= SVCPKT_MAX_PENDING_CLOCKS) {
		uint32_t l;

		memcpy(&l, s->pending_clocks, sizeof(l));
		off = sizeof(l) + l;
		memmove(s->pending_clocks, s->pending_clocks + off,
		    s->pending_clocks_len - off);
		s->pending_clocks_len -= off;
	}
	for (i = 0; i < 6; i++) {
		perfetto__protos__clock_snapshot__clock__init(&c[i]);
		c[i].has_clock_id = 1;
		c[i].clock_id = clocks[i].id;
		c[i].has_timestamp = 1;
		c[i].timestamp = session_now_ns(clocks[i].clk);
		cp[i] = &c[i];
	}
	cs.n_clocks = 6;
	cs.clocks = cp;
	cs.has_primary_trace_clock = 1;
	cs.primary_trace_clock = b != NULL && b->has_primary_trace_clock &&
	    b->primary_trace_clock != 0 ? b->primary_trace_clock :
	    PERFETTO__PROTOS__BUILTIN_CLOCK__BUILTIN_CLOCK_BOOTTIME;
	service_packets_header(s, &pkt);
	pkt.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_CLOCK_SNAPSHOT;
	pkt.clock_snapshot = &cs;
	len = perfetto__protos__trace_packet__get_packed_size(&pkt);
	n = realloc(s->pending_clocks, s->pending_clocks_len + 4 + len);
	if (n == NULL)
		return;
	s->pending_clocks = n;
	memcpy(n + s->pending_clocks_len, &(uint32_t){ (uint32_t)len }, 4);
	perfetto__protos__trace_packet__pack(&pkt,
	    n + s->pending_clocks_len + 4);
	s->pending_clocks_len += 4 + len;
}

static int
service_packets_system_info(const struct tsession *s, packet_sink_fn *sink,
    void *arg, size_t *bytes)
{
	Perfetto__Protos__SystemInfo	 si = PERFETTO__PROTOS__SYSTEM_INFO__INIT;
	Perfetto__Protos__Utsname	 un = PERFETTO__PROTOS__UTSNAME__INIT;
	TracePacket			 pkt = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	struct utsname			 u;
	long				 v;

	if (uname(&u) == 0) {
		un.sysname = u.sysname;
		un.version = u.version;
		un.release = u.release;
		un.machine = u.machine;
		si.utsname = &un;
	}
	si.tracing_service_version = (char *)"faro traced " PACKAGE_VERSION;
	if ((v = sysconf(_SC_PAGESIZE)) > 0) {
		si.has_page_size = 1;
		si.page_size = (uint32_t)v;
	}
	if ((v = sysconf(_SC_NPROCESSORS_CONF)) > 0) {
		si.has_num_cpus = 1;
		si.num_cpus = (uint32_t)v;
	}
	if ((v = sysconf(_SC_CLK_TCK)) > 0) {
		si.has_hz = 1;
		si.hz = v;
	}
	service_packets_header(s, &pkt);
	pkt.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_SYSTEM_INFO;
	pkt.system_info = &si;
	return service_packets_emit(&pkt, sink, arg, bytes);
}

static int
service_packets_lifecycle(struct tsession *s, packet_sink_fn *sink, void *arg,
    size_t *bytes)
{
	static const int cases[TL_COUNT] = {
		[TL_TRACING_STARTED] =
		    PERFETTO__PROTOS__TRACING_SERVICE_EVENT__EVENT_TYPE_TRACING_STARTED,
		[TL_ALL_STARTED] =
		    PERFETTO__PROTOS__TRACING_SERVICE_EVENT__EVENT_TYPE_ALL_DATA_SOURCES_STARTED,
		[TL_FLUSH_STARTED] =
		    PERFETTO__PROTOS__TRACING_SERVICE_EVENT__EVENT_TYPE_FLUSH_STARTED,
		[TL_ALL_FLUSHED] =
		    PERFETTO__PROTOS__TRACING_SERVICE_EVENT__EVENT_TYPE_ALL_DATA_SOURCES_FLUSHED,
		[TL_READ_COMPLETED] =
		    PERFETTO__PROTOS__TRACING_SERVICE_EVENT__EVENT_TYPE_READ_TRACING_BUFFERS_COMPLETED,
		[TL_TRACING_DISABLED] =
		    PERFETTO__PROTOS__TRACING_SERVICE_EVENT__EVENT_TYPE_TRACING_DISABLED,
	};
	Perfetto__Protos__TracingServiceEvent	ev;
	TracePacket				pkt;
	size_t					i, j;

	if (s->cfg->builtin_data_sources != NULL &&
	    s->cfg->builtin_data_sources->disable_service_events)
		return 0;
	for (i = 0; i < TL_COUNT; i++) {
		for (j = 0; j < s->nlifecycle[i]; j++) {
			perfetto__protos__tracing_service_event__init(&ev);
			perfetto__protos__trace_packet__init(&pkt);
			/* Every member of the oneof is a bool here. */
			ev.event_type_case = cases[i];
			ev.tracing_started = 1;
			service_packets_header(s, &pkt);
			pkt.has_timestamp = 1;
			pkt.timestamp = s->lifecycle[i][j];
			pkt.has_timestamp_clock_id = 1;
			pkt.timestamp_clock_id =
			    PERFETTO__PROTOS__BUILTIN_CLOCK__BUILTIN_CLOCK_BOOTTIME;
			pkt.data_case =
			    PERFETTO__PROTOS__TRACE_PACKET__DATA_SERVICE_EVENT;
			pkt.service_event = &ev;
			if (service_packets_emit(&pkt, sink, arg, bytes) == -1)
				return -1;
		}
		s->nlifecycle[i] = 0;
	}
	if (s->slow_start != NULL) {
		i = s->slow_start_len;
		if (bytes != NULL)
			*bytes += i;
		if (sink(arg, s->slow_start, i, NULL, 0) == -1)
			return -1;
		free(s->slow_start);
		s->slow_start = NULL;
	}
	return 0;
}

/*
 * The slow_starting_data_sources event: the instances still not started,
 * by producer and name (at most TRACED_MAX_LISTED_DATA_SOURCES, as
 * upstream), packed now and emitted with the next lifecycle events.
 */
void
service_packets_slow_start(struct tsession *s)
{
	Perfetto__Protos__TracingServiceEvent__DataSources__DataSource
	    ds[TRACED_MAX_LISTED_DATA_SOURCES], *dsp[TRACED_MAX_LISTED_DATA_SOURCES];
	Perfetto__Protos__TracingServiceEvent__DataSources list =
	    PERFETTO__PROTOS__TRACING_SERVICE_EVENT__DATA_SOURCES__INIT;
	Perfetto__Protos__TracingServiceEvent	ev =
	    PERFETTO__PROTOS__TRACING_SERVICE_EVENT__INIT;
	TracePacket				pkt =
	    PERFETTO__PROTOS__TRACE_PACKET__INIT;
	struct tinstance			*inst;
	size_t					n = 0;

	TAILQ_FOREACH(inst, &s->instances, entry) {
		if (inst->state == TI_STARTED || inst->producer == NULL)
			continue;
		log_info("%s: session %" PRIu64 ": data source \"%s\" of "
		    "producer \"%s\" has not started", __func__, s->id,
		    inst->ds_name, inst->producer->name != NULL ?
		    inst->producer->name : "");
		if (n == TRACED_MAX_LISTED_DATA_SOURCES)
			continue;
		perfetto__protos__tracing_service_event__data_sources__data_source__init(
		    &ds[n]);
		ds[n].producer_name = inst->producer->name;
		ds[n].data_source_name = inst->ds_name;
		dsp[n] = &ds[n];
		n++;
	}
	list.n_data_source = n;
	list.data_source = dsp;
	ev.event_type_case =
	    PERFETTO__PROTOS__TRACING_SERVICE_EVENT__EVENT_TYPE_SLOW_STARTING_DATA_SOURCES;
	ev.slow_starting_data_sources = &list;
	service_packets_header(s, &pkt);
	pkt.has_timestamp = 1;
	pkt.timestamp = session_now_ns(CLOCK_BOOTTIME);
	pkt.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_SERVICE_EVENT;
	pkt.service_event = &ev;
	free(s->slow_start);
	s->slow_start_len = perfetto__protos__trace_packet__get_packed_size(
	    &pkt);
	if ((s->slow_start = malloc(s->slow_start_len)) == NULL) {
		s->slow_start_len = 0;
		return;
	}
	perfetto__protos__trace_packet__pack(&pkt, s->slow_start);
}

/*
 * Everything due at the head of a read, in upstream's order: clock
 * snapshots, sync marker, config and triggers, then (once) the UUID and
 * system info, then lifecycle events.
 */
int
service_packets_emit_head(struct tsession *s, packet_sink_fn *sink, void *arg,
    size_t *bytes)
{
	const Perfetto__Protos__TraceConfig__BuiltinDataSource *b =
	    s->cfg->builtin_data_sources;
	TracePacket	 pkt;
	size_t		 off, i;
	uint32_t	 l;
	int		 rc = 0;

	for (off = 0; off < s->pending_clocks_len && rc == 0; off += l) {
		memcpy(&l, s->pending_clocks + off, sizeof(l));
		off += sizeof(l);
		rc = sink(arg, s->pending_clocks + off, l, NULL, 0);
		*bytes += l;
	}
	free(s->pending_clocks);
	s->pending_clocks = NULL;
	s->pending_clocks_len = 0;
	if (rc == -1)
		return -1;
	if (s->should_emit_sync) {
		perfetto__protos__trace_packet__init(&pkt);
		service_packets_header(s, &pkt);
		pkt.data_case =
		    PERFETTO__PROTOS__TRACE_PACKET__DATA_SYNCHRONIZATION_MARKER;
		pkt.synchronization_marker.data = (uint8_t *)service_packets_sync_marker;
		pkt.synchronization_marker.len = sizeof(service_packets_sync_marker);
		if (service_packets_emit(&pkt, sink, arg, bytes) == -1)
			return -1;
		s->should_emit_sync = 0;
	}
	if (!s->did_emit_initial && (b == NULL || !b->disable_trace_config)) {
		perfetto__protos__trace_packet__init(&pkt);
		service_packets_header(s, &pkt);
		pkt.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACE_CONFIG;
		pkt.trace_config = s->cfg;
		if (service_packets_emit(&pkt, sink, arg, bytes) == -1)
			return -1;
	}
	if (b == NULL || !b->disable_trace_config) {
		for (i = s->triggers_emitted; i < s->ntriggers; i++) {
			Perfetto__Protos__Trigger t =
			    PERFETTO__PROTOS__TRIGGER__INIT;

			perfetto__protos__trace_packet__init(&pkt);
			service_packets_header(s, &pkt);
			t.trigger_name = s->triggers[i].name;
			t.producer_name = s->triggers[i].producer_name;
			t.has_trusted_producer_uid = 1;
			t.trusted_producer_uid = (int32_t)s->triggers[i].uid;
			pkt.has_timestamp = 1;
			pkt.timestamp = s->triggers[i].ts_ns;
			pkt.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRIGGER;
			pkt.trigger = &t;
			if (service_packets_emit(&pkt, sink, arg, bytes) == -1)
				return -1;
		}
		s->triggers_emitted = s->ntriggers;
	}
	if (!s->did_emit_initial) {
		Perfetto__Protos__TraceUuid u = PERFETTO__PROTOS__TRACE_UUID__INIT;

		perfetto__protos__trace_packet__init(&pkt);
		service_packets_header(s, &pkt);
		u.has_msb = u.has_lsb = 1;
		u.msb = s->uuid_msb;
		u.lsb = s->uuid_lsb;
		pkt.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACE_UUID;
		pkt.trace_uuid = &u;
		if (service_packets_emit(&pkt, sink, arg, bytes) == -1)
			return -1;
		if ((b == NULL || !b->disable_system_info) &&
		    service_packets_system_info(s, sink, arg, bytes) == -1)
			return -1;
		s->did_emit_initial = 1;
	}
	return service_packets_lifecycle(s, sink, arg, bytes);
}

/* At the end of a read that drained everything. */
int
service_packets_emit_tail(struct tsession *s, packet_sink_fn *sink, void *arg,
    size_t *bytes)
{
	session_lifecycle(s, TL_READ_COMPLETED);
	return service_packets_lifecycle(s, sink, arg, bytes);
}

/* After the tail, once: the session's TraceStats. */
int
service_packets_emit_stats(struct tsession *s, packet_sink_fn *sink, void *arg,
    size_t *bytes)
{
	Perfetto__Protos__TraceStats	*st;
	TracePacket			 pkt = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	int				 rc;

	if (!s->should_emit_stats)
		return 0;
	s->should_emit_stats = 0;
	if ((st = service_packets_stats_new(s)) == NULL)
		return 0;
	service_packets_header(s, &pkt);
	pkt.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACE_STATS;
	pkt.trace_stats = st;
	rc = service_packets_emit(&pkt, sink, arg, bytes);
	service_packets_stats_free(st);
	return rc;
}

/* FilterStats, when the session has a trace filter (best effort). */
static void
service_packets_filter_stats(const struct tsession *s,
    Perfetto__Protos__TraceStats *st)
{
	Perfetto__Protos__TraceStats__FilterStats	*fs;
	const struct trace_filter_stats			*f = &s->filter_stats;

	if ((fs = calloc(1, sizeof(*fs))) == NULL)
		return;
	perfetto__protos__trace_stats__filter_stats__init(fs);
	fs->has_input_packets = fs->has_input_bytes = fs->has_output_bytes =
	    fs->has_errors = fs->has_time_taken_ns = 1;
	fs->input_packets = f->input_packets;
	fs->input_bytes = f->input_bytes;
	fs->output_bytes = f->output_bytes;
	fs->errors = f->errors;
	fs->time_taken_ns = f->time_taken_ns;
	if (s->nbuffers > 0 && (fs->bytes_discarded_per_buffer =
	    calloc(s->nbuffers, sizeof(uint64_t))) != NULL) {
		memcpy(fs->bytes_discarded_per_buffer, f->discarded,
		    s->nbuffers * sizeof(uint64_t));
		fs->n_bytes_discarded_per_buffer = s->nbuffers;
	}
	st->filter_stats = fs;
}

/* TraceStats of a session (GetTraceStats and the final packet). */
Perfetto__Protos__TraceStats *
service_packets_stats_new(struct tsession *s)
{
	struct traced				*svc = s->svc;
	Perfetto__Protos__TraceStats		*st;
	Perfetto__Protos__TraceStats__BufferStats *bs;
	struct trace_buffer_stats		 tbs;
	struct tproducer			*p;
	size_t					 i;

	if ((st = calloc(1, sizeof(*st))) == NULL)
		return NULL;
	perfetto__protos__trace_stats__init(st);
	if (s->nbuffers > 0) {
		st->buffer_stats = calloc(s->nbuffers, sizeof(*st->buffer_stats));
		bs = calloc(s->nbuffers, sizeof(*bs));
		if (st->buffer_stats == NULL || bs == NULL) {
			free(st->buffer_stats);
			free(bs);
			free(st);
			return NULL;
		}
		for (i = 0; i < s->nbuffers; i++) {
			struct trace_buffer *tb = svc->buffers[s->buffers[i]];

			perfetto__protos__trace_stats__buffer_stats__init(&bs[i]);
			st->buffer_stats[i] = &bs[i];
			if (tb == NULL)
				continue;
			trace_buffer_stats(tb, &tbs);
#define BS(f) bs[i].has_##f = 1, bs[i].f = tbs.f
			BS(buffer_size); BS(bytes_written); BS(bytes_overwritten);
			BS(bytes_read); BS(padding_bytes_written);
			BS(padding_bytes_cleared); BS(chunks_written);
			BS(chunks_rewritten); BS(chunks_overwritten);
			BS(chunks_discarded); BS(chunks_read);
			BS(chunks_committed_out_of_order); BS(write_wrap_count);
			BS(patches_succeeded); BS(patches_failed);
			BS(readaheads_succeeded); BS(readaheads_failed);
			BS(abi_violations); BS(trace_writer_packet_loss);
#undef BS
		}
		st->n_buffer_stats = s->nbuffers;
	}
	st->has_producers_connected = 1;
	st->producers_connected = (uint32_t)svc->nproducers;
	st->has_producers_seen = 1;
	st->producers_seen = svc->producers_seen;
	st->has_data_sources_registered = 1;
	st->data_sources_registered = (uint32_t)svc->ndatasources;
	st->has_data_sources_seen = 1;
	st->data_sources_seen = svc->last_instance_id;
	st->has_tracing_sessions = 1;
	st->tracing_sessions = (uint32_t)svc->nsessions;
	st->has_total_buffers = 1;
	st->total_buffers = (uint32_t)svc->nbuffers;
	st->has_chunks_discarded = 1;
	st->chunks_discarded = svc->stats.chunks_discarded;
	st->has_patches_discarded = 1;
	st->patches_discarded = svc->stats.patches_discarded;
	st->has_invalid_packets = 1;
	st->invalid_packets = s->invalid_packets;
	st->has_flushes_requested = 1;
	st->flushes_requested = s->flushes_requested;
	st->has_flushes_succeeded = 1;
	st->flushes_succeeded = s->flushes_succeeded;
	st->has_flushes_failed = 1;
	st->flushes_failed = s->flushes_failed;
	if (s->final_flush_outcome) {
		st->has_final_flush_outcome = 1;
		st->final_flush_outcome = s->final_flush_outcome;
	}
	if (s->filter != NULL)
		service_packets_filter_stats(s, st);
	(void)p;
	return st;
}

void
service_packets_stats_free(Perfetto__Protos__TraceStats *st)
{
	if (st == NULL)
		return;
	if (st->n_buffer_stats > 0)
		free(st->buffer_stats[0]);
	free(st->buffer_stats);
	if (st->filter_stats != NULL)
		free(st->filter_stats->bytes_discarded_per_buffer);
	free(st->filter_stats);
	free(st);
}
