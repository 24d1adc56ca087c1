/*
 * ProducerPort: the RPC face of traced towards producers, method for
 * method as upstream's producer_port.proto (ids 1..12 in declaration
 * order). Arguments are untrusted: each handler decodes them with
 * protobuf-c (unknown fields skipped, padded varints accepted), checks
 * them and calls into the registry or the session code. A producer is
 * known by its connection; nothing it says about itself is believed.
 *
 * Commands travel back on the GetAsyncCommand stream, one long-lived
 * reply handle per producer. The first command is setup_tracing, which
 * carries the SMB descriptor.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "libipc/ipc_host.h"
#include "traced.h"
#include "protos/perfetto/common/data_source_descriptor.pb-c.h"
#include "protos/perfetto/common/commit_data_request.pb-c.h"
#include "protos/perfetto/ipc/producer_port.pb-c.h"

typedef Perfetto__Protos__GetAsyncCommandResponse	AsyncCmd;

/* Unpacks the arguments or fails the call: NULL means "replied". */
#define PPORT_ARGS(type, fn, call)					\
	((type *)ipc_call_args_untrusted((call),			\
	    &perfetto__protos__##fn##__descriptor))

static struct tproducer *
producer_port_producer(struct ipc_call *call, struct traced *svc)
{
	struct tproducer	*p;

	p = service_producer_by_conn(svc, call->peer->conn_id);
	if (p == NULL) {
		/* Upstream rejects calls before InitializeConnection. */
		svc->stats.bad_requests++;
		ipc_reply_fail(call->reply);
	}
	return p;
}

/* ---- commands ------------------------------------------------------ */

static void
producer_port_send(struct tproducer *p, AsyncCmd *cmd, int fd)
{
	if (p->cmds == NULL) {
		log_debug("%s: producer %u has no command stream yet",
		    __func__, p->id);
		return;
	}
	if (ipc_reply_send_msg(p->cmds, &cmd->base, 1, fd) == -1)
		log_debug("%s: producer %u: send failed", __func__, p->id);
}

/*
 * Holds (on) or sends (off; holds nest) the commands queued for p, within
 * one callback. A session start holds them so that each producer reads
 * its SetupDataSource and StartDataSource at once: upstream's SDK (v14)
 * turns its TrackEvent categories on at setup but drops, uncounted, what
 * its threads write until it has handled the start. Sent apart, the two
 * leave that window open for as long as traced or the producer is
 * preempted in between (milliseconds beside CPU hogs); read together,
 * the SDK handles them back to back.
 */
void
producer_port_hold(struct tproducer *p, int on)
{
	if (on && p->cmds != NULL) {
		ipc_reply_hold(p->cmds, 1);
		p->cmds_held++;
	} else if (!on && p->cmds_held > 0) {
		p->cmds_held--;
		if (p->cmds != NULL)
			ipc_reply_hold(p->cmds, 0);
	}
}

void
producer_port_hold_all(struct traced *svc, int on)
{
	struct tproducer	*p;

	TAILQ_FOREACH(p, &svc->producers, entry)
		producer_port_hold(p, on);
}

void
producer_port_setup_tracing(struct tproducer *p)
{
	AsyncCmd	cmd = PERFETTO__PROTOS__GET_ASYNC_COMMAND_RESPONSE__INIT;
	Perfetto__Protos__GetAsyncCommandResponse__SetupTracing st =
	    PERFETTO__PROTOS__GET_ASYNC_COMMAND_RESPONSE__SETUP_TRACING__INIT;

	if (p->cmds == NULL) {
		p->setup_tracing_pending = 1;
		return;
	}
	p->setup_tracing_pending = 0;
	cmd.cmd_case = PERFETTO__PROTOS__GET_ASYNC_COMMAND_RESPONSE__CMD_SETUP_TRACING;
	cmd.setup_tracing = &st;
	if (!p->smb_from_producer) {
		st.has_shared_buffer_page_size_kb = 1;
		st.shared_buffer_page_size_kb =
		    (uint32_t)(p->smb->abi.page_size / 1024);
	}
	producer_port_send(p, &cmd, p->smb_from_producer ? -1 : p->smb->region.fd);
}

static void
producer_port_send_ds(struct tproducer *p, struct tinstance *inst, int start)
{
	AsyncCmd	cmd = PERFETTO__PROTOS__GET_ASYNC_COMMAND_RESPONSE__INIT;
	Perfetto__Protos__GetAsyncCommandResponse__SetupDataSource su =
	    PERFETTO__PROTOS__GET_ASYNC_COMMAND_RESPONSE__SETUP_DATA_SOURCE__INIT;
	Perfetto__Protos__GetAsyncCommandResponse__StartDataSource sa =
	    PERFETTO__PROTOS__GET_ASYNC_COMMAND_RESPONSE__START_DATA_SOURCE__INIT;
	Perfetto__Protos__DataSourceConfig	*c;

	c = perfetto__protos__data_source_config__unpack(NULL,
	    inst->config_len, inst->config);
	if (c == NULL)
		return;
	if (start) {
		sa.has_new_instance_id = 1;
		sa.new_instance_id = inst->id;
		sa.config = c;
		cmd.cmd_case =
		    PERFETTO__PROTOS__GET_ASYNC_COMMAND_RESPONSE__CMD_START_DATA_SOURCE;
		cmd.start_data_source = &sa;
	} else {
		su.has_new_instance_id = 1;
		su.new_instance_id = inst->id;
		su.config = c;
		cmd.cmd_case =
		    PERFETTO__PROTOS__GET_ASYNC_COMMAND_RESPONSE__CMD_SETUP_DATA_SOURCE;
		cmd.setup_data_source = &su;
	}
	producer_port_send(p, &cmd, -1);
	perfetto__protos__data_source_config__free_unpacked(c, NULL);
}

void
producer_port_setup_ds(struct tproducer *p, struct tinstance *inst)
{
	producer_port_send_ds(p, inst, 0);
}

void
producer_port_start_ds(struct tproducer *p, struct tinstance *inst)
{
	producer_port_send_ds(p, inst, 1);
}

void
producer_port_stop_ds(struct tproducer *p, uint64_t id)
{
	AsyncCmd	cmd = PERFETTO__PROTOS__GET_ASYNC_COMMAND_RESPONSE__INIT;
	Perfetto__Protos__GetAsyncCommandResponse__StopDataSource st =
	    PERFETTO__PROTOS__GET_ASYNC_COMMAND_RESPONSE__STOP_DATA_SOURCE__INIT;

	st.has_instance_id = 1;
	st.instance_id = id;
	cmd.cmd_case = PERFETTO__PROTOS__GET_ASYNC_COMMAND_RESPONSE__CMD_STOP_DATA_SOURCE;
	cmd.stop_data_source = &st;
	producer_port_send(p, &cmd, -1);
}

void
producer_port_flush(struct tproducer *p, uint64_t request_id, uint64_t *ids,
    size_t n, uint64_t flags)
{
	AsyncCmd	cmd = PERFETTO__PROTOS__GET_ASYNC_COMMAND_RESPONSE__INIT;
	Perfetto__Protos__GetAsyncCommandResponse__Flush fl =
	    PERFETTO__PROTOS__GET_ASYNC_COMMAND_RESPONSE__FLUSH__INIT;

	fl.n_data_source_ids = n;
	fl.data_source_ids = ids;
	fl.has_request_id = 1;
	fl.request_id = request_id;
	if (flags != 0) {
		fl.has_flags = 1;
		fl.flags = flags;
	}
	cmd.cmd_case = PERFETTO__PROTOS__GET_ASYNC_COMMAND_RESPONSE__CMD_FLUSH;
	cmd.flush = &fl;
	producer_port_send(p, &cmd, -1);
}

void
producer_port_clear_incremental(struct tproducer *p, uint64_t *ids, size_t n)
{
	AsyncCmd	cmd = PERFETTO__PROTOS__GET_ASYNC_COMMAND_RESPONSE__INIT;
	Perfetto__Protos__GetAsyncCommandResponse__ClearIncrementalState ci =
	    PERFETTO__PROTOS__GET_ASYNC_COMMAND_RESPONSE__CLEAR_INCREMENTAL_STATE__INIT;

	ci.n_data_source_ids = n;
	ci.data_source_ids = ids;
	cmd.cmd_case =
	    PERFETTO__PROTOS__GET_ASYNC_COMMAND_RESPONSE__CMD_CLEAR_INCREMENTAL_STATE;
	cmd.clear_incremental_state = &ci;
	producer_port_send(p, &cmd, -1);
}

/* ---- methods ------------------------------------------------------- */

static void
producer_port_initialize_connection(struct ipc_call *call, void *arg)
{
	struct traced		*svc = arg;
	struct tproducer	*p;
	Perfetto__Protos__InitializeConnectionRequest *req;
	Perfetto__Protos__InitializeConnectionResponse res =
	    PERFETTO__PROTOS__INITIALIZE_CONNECTION_RESPONSE__INIT;
	const char		*cause;
	int			 fd;

	if (service_producer_by_conn(svc, call->peer->conn_id) != NULL) {
		log_warnx("%s: pid %d initialised twice", __func__,
		    (int)call->peer->pid);
		ipc_reply_fail(call->reply);
		return;
	}
	if ((req = PPORT_ARGS(Perfetto__Protos__InitializeConnectionRequest,
	    initialize_connection_request, call)) == NULL)
		return;
	p = service_producer_connect(svc, call->peer->conn_id,
	    call->peer->uid, call->peer->pid, req->producer_name, &cause);
	if (p == NULL) {
		log_warnx("%s: %s", __func__, cause);
		ipc_reply_fail(call->reply);
		goto out;
	}
	if (req->has_shared_memory_size_hint_bytes)
		p->smb_size_hint = req->shared_memory_size_hint_bytes;
	if (req->has_shared_memory_page_size_hint_bytes)
		p->smb_page_hint = req->shared_memory_page_size_hint_bytes;
	if (req->has_smb_scraping_mode && req->smb_scraping_mode ==
	    PERFETTO__PROTOS__INITIALIZE_CONNECTION_REQUEST__PRODUCER_SMBSCRAPING_MODE__SMB_SCRAPING_DISABLED)
		p->scraping = 0;
	if (req->sdk_version != NULL)
		p->sdk_version = strdup(req->sdk_version);
	if (req->has_producer_provided_shmem && req->producer_provided_shmem) {
		if ((fd = ipc_call_take_fd(call)) == -1)
			log_info("%s: producer %u offered an SMB without a "
			    "descriptor", __func__, p->id);
		else if (smb_adopt_untrusted(p, fd, p->smb_page_hint,
		    &cause) == -1) {
			log_warnx("%s: producer %u: its SMB is unusable (%s), "
			    "using ours", __func__, p->id, cause);
		} else
			producer_port_setup_tracing(p);	/* sent once the stream is up */
	}
	res.has_using_shmem_provided_by_producer = 1;
	res.using_shmem_provided_by_producer = p->smb_from_producer;
	res.has_direct_smb_patching_supported = 1;
	res.direct_smb_patching_supported = 1;
	ipc_reply_send_msg(call->reply, &res.base, 0, -1);
out:
	perfetto__protos__initialize_connection_request__free_unpacked(req,
	    NULL);
}

static void
producer_port_register_data_source(struct ipc_call *call, void *arg)
{
	struct traced		*svc = arg;
	struct tproducer	*p;
	Perfetto__Protos__RegisterDataSourceRequest *req;
	Perfetto__Protos__RegisterDataSourceResponse res =
	    PERFETTO__PROTOS__REGISTER_DATA_SOURCE_RESPONSE__INIT;
	const char		*cause = NULL;
	uint8_t			*buf = NULL;
	size_t			 len;

	if ((p = producer_port_producer(call, svc)) == NULL ||
	    (req = PPORT_ARGS(Perfetto__Protos__RegisterDataSourceRequest,
	    register_data_source_request, call)) == NULL)
		return;
	if (req->data_source_descriptor == NULL)
		cause = "no data source descriptor";
	else {
		len = perfetto__protos__data_source_descriptor__get_packed_size(
		    req->data_source_descriptor);
		if ((buf = malloc(len ? len : 1)) == NULL)
			cause = "out of memory";
		else {
			perfetto__protos__data_source_descriptor__pack(
			    req->data_source_descriptor, buf);
			service_datasource_register(p, buf, len, &cause);
		}
	}
	if (cause != NULL) {
		log_warnx("%s: producer %u: %s", __func__, p->id, cause);
		res.error = (char *)cause;
	}
	ipc_reply_send_msg(call->reply, &res.base, 0, -1);
	free(buf);
	perfetto__protos__register_data_source_request__free_unpacked(req,
	    NULL);
}

static void
producer_port_update_data_source(struct ipc_call *call, void *arg)
{
	struct traced		*svc = arg;
	struct tproducer	*p;
	Perfetto__Protos__UpdateDataSourceRequest *req;
	const char		*cause = NULL;
	uint8_t			*buf;
	size_t			 len;

	if ((p = producer_port_producer(call, svc)) == NULL ||
	    (req = PPORT_ARGS(Perfetto__Protos__UpdateDataSourceRequest,
	    update_data_source_request, call)) == NULL)
		return;
	if (req->data_source_descriptor != NULL) {
		len = perfetto__protos__data_source_descriptor__get_packed_size(
		    req->data_source_descriptor);
		if ((buf = malloc(len ? len : 1)) != NULL) {
			perfetto__protos__data_source_descriptor__pack(
			    req->data_source_descriptor, buf);
			if (service_datasource_update(p, buf, len,
			    &cause) == -1)
				log_warnx("%s: producer %u: %s", __func__,
				    p->id, cause);
			free(buf);
		}
	}
	ipc_reply_send_empty(call->reply,
	    &perfetto__protos__update_data_source_response__descriptor);
	perfetto__protos__update_data_source_request__free_unpacked(req, NULL);
}

static void
producer_port_unregister_data_source(struct ipc_call *call, void *arg)
{
	struct traced		*svc = arg;
	struct tproducer	*p;
	Perfetto__Protos__UnregisterDataSourceRequest *req;

	if ((p = producer_port_producer(call, svc)) == NULL ||
	    (req = PPORT_ARGS(Perfetto__Protos__UnregisterDataSourceRequest,
	    unregister_data_source_request, call)) == NULL)
		return;
	if (service_datasource_unregister(p, req->data_source_name) == -1)
		log_debug("%s: producer %u: unknown data source", __func__,
		    p->id);
	ipc_reply_send_empty(call->reply,
	    &perfetto__protos__unregister_data_source_response__descriptor);
	perfetto__protos__unregister_data_source_request__free_unpacked(req,
	    NULL);
}

static void
producer_port_commit_data(struct ipc_call *call, void *arg)
{
	struct traced		*svc = arg;
	struct tproducer	*p;
	Perfetto__Protos__CommitDataRequest *req;

	if ((p = producer_port_producer(call, svc)) == NULL ||
	    (req = PPORT_ARGS(Perfetto__Protos__CommitDataRequest,
	    commit_data_request, call)) == NULL)
		return;
	commit_data_untrusted(p, req);
	ipc_reply_send_empty(call->reply,
	    &perfetto__protos__commit_data_response__descriptor);
	perfetto__protos__commit_data_request__free_unpacked(req, NULL);
}

static void
producer_port_get_async_command(struct ipc_call *call, void *arg)
{
	struct traced		*svc = arg;
	struct tproducer	*p;

	if ((p = producer_port_producer(call, svc)) == NULL)
		return;
	/* One stream per producer: a second call replaces the first. */
	if (p->cmds != NULL)
		ipc_reply_free(p->cmds);
	p->cmds = call->reply;
	call->reply = NULL;
	if (p->setup_tracing_pending && p->smb != NULL)
		producer_port_setup_tracing(p);
}

static void
producer_port_register_trace_writer(struct ipc_call *call, void *arg)
{
	struct traced		*svc = arg;
	struct tproducer	*p;
	Perfetto__Protos__RegisterTraceWriterRequest *req;

	if ((p = producer_port_producer(call, svc)) == NULL ||
	    (req = PPORT_ARGS(Perfetto__Protos__RegisterTraceWriterRequest,
	    register_trace_writer_request, call)) == NULL)
		return;
	if (service_writer_register(p, req->trace_writer_id,
	    req->target_buffer) == -1)
		log_warnx("%s: producer %u: writer %u refused", __func__,
		    p->id, req->trace_writer_id);
	ipc_reply_send_empty(call->reply,
	    &perfetto__protos__register_trace_writer_response__descriptor);
	perfetto__protos__register_trace_writer_request__free_unpacked(req,
	    NULL);
}

static void
producer_port_unregister_trace_writer(struct ipc_call *call, void *arg)
{
	struct traced		*svc = arg;
	struct tproducer	*p;
	Perfetto__Protos__UnregisterTraceWriterRequest *req;

	if ((p = producer_port_producer(call, svc)) == NULL ||
	    (req = PPORT_ARGS(Perfetto__Protos__UnregisterTraceWriterRequest,
	    unregister_trace_writer_request, call)) == NULL)
		return;
	service_writer_unregister(p, req->trace_writer_id);
	ipc_reply_send_empty(call->reply,
	    &perfetto__protos__unregister_trace_writer_response__descriptor);
	perfetto__protos__unregister_trace_writer_request__free_unpacked(req,
	    NULL);
}

static void
producer_port_notify_started(struct ipc_call *call, void *arg)
{
	struct traced		*svc = arg;
	struct tproducer	*p;
	Perfetto__Protos__NotifyDataSourceStartedRequest *req;

	if ((p = producer_port_producer(call, svc)) == NULL ||
	    (req = PPORT_ARGS(Perfetto__Protos__NotifyDataSourceStartedRequest,
	    notify_data_source_started_request, call)) == NULL)
		return;
	session_instance_started(p, req->data_source_id);
	ipc_reply_send_empty(call->reply,
	    &perfetto__protos__notify_data_source_started_response__descriptor);
	perfetto__protos__notify_data_source_started_request__free_unpacked(
	    req, NULL);
}

static void
producer_port_notify_stopped(struct ipc_call *call, void *arg)
{
	struct traced		*svc = arg;
	struct tproducer	*p;
	Perfetto__Protos__NotifyDataSourceStoppedRequest *req;

	if ((p = producer_port_producer(call, svc)) == NULL ||
	    (req = PPORT_ARGS(Perfetto__Protos__NotifyDataSourceStoppedRequest,
	    notify_data_source_stopped_request, call)) == NULL)
		return;
	session_instance_stopped(p, req->data_source_id);
	ipc_reply_send_empty(call->reply,
	    &perfetto__protos__notify_data_source_stopped_response__descriptor);
	perfetto__protos__notify_data_source_stopped_request__free_unpacked(
	    req, NULL);
}

static void
producer_port_activate_triggers(struct ipc_call *call, void *arg)
{
	struct traced		*svc = arg;
	struct tproducer	*p;
	Perfetto__Protos__ActivateTriggersRequest *req;

	if ((p = producer_port_producer(call, svc)) == NULL ||
	    (req = PPORT_ARGS(Perfetto__Protos__ActivateTriggersRequest,
	    activate_triggers_request, call)) == NULL)
		return;
	session_activate_triggers(p, req->trigger_names, req->n_trigger_names);
	ipc_reply_send_empty(call->reply,
	    &perfetto__protos__activate_triggers_response__descriptor);
	perfetto__protos__activate_triggers_request__free_unpacked(req, NULL);
}

static void
producer_port_sync(struct ipc_call *call, void *arg)
{
	struct traced		*svc = arg;

	if (producer_port_producer(call, svc) == NULL)
		return;
	/* Calls are served in order: everything before this is done. */
	ipc_reply_send_empty(call->reply,
	    &perfetto__protos__sync_response__descriptor);
}

static void
producer_port_disconnect(const struct ipc_peer *peer, void *arg)
{
	struct traced		*svc = arg;
	struct tproducer	*p;

	if ((p = service_producer_by_conn(svc, peer->conn_id)) != NULL)
		service_producer_disconnect(p);
}

/* Handlers by method name, matched against the service descriptor. */
static const struct ipc_method producer_port_methods[] = {
	{ "InitializeConnection",	producer_port_initialize_connection },
	{ "RegisterDataSource",		producer_port_register_data_source },
	{ "UnregisterDataSource",	producer_port_unregister_data_source },
	{ "CommitData",			producer_port_commit_data },
	{ "GetAsyncCommand",		producer_port_get_async_command },
	{ "RegisterTraceWriter",	producer_port_register_trace_writer },
	{ "UnregisterTraceWriter",	producer_port_unregister_trace_writer },
	{ "NotifyDataSourceStarted",	producer_port_notify_started },
	{ "NotifyDataSourceStopped",	producer_port_notify_stopped },
	{ "ActivateTriggers",		producer_port_activate_triggers },
	{ "Sync",			producer_port_sync },
	{ "UpdateDataSource",		producer_port_update_data_source },
};

int
producer_port_register(struct traced *svc, struct ipc_host *host)
{
	return ipc_host_add_service_named(host,
	    &perfetto__protos__producer_port__descriptor, producer_port_methods,
	    sizeof(producer_port_methods) / sizeof(producer_port_methods[0]),
	    producer_port_disconnect, svc);
}
