/*
 * Producer endpoint: ProducerPort client (see producer_endpoint.h).
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "protos/perfetto/common/commit_data_request.pb-c.h"
#include "protos/perfetto/ipc/producer_port.pb-c.h"

#include "ipc_client.h"
#include "ipc_sockname.h"
#include "base/log.h"
#include "producer_endpoint.h"
#include "libshm/shm_abi.h"

#define RECONNECT_MS	500
#define SERVICE_NAME	"ProducerPort"

enum {
	M_INIT, M_REGISTER_DS, M_COMMIT, M_GET_CMD, M_REGISTER_TW,
	M_UNREGISTER_TW, M_STARTED, M_STOPPED, M_TRIGGERS, M_COUNT
};
static const char *method_names[M_COUNT] = {
	"InitializeConnection", "RegisterDataSource", "CommitData",
	"GetAsyncCommand", "RegisterTraceWriter", "UnregisterTraceWriter",
	"NotifyDataSourceStarted", "NotifyDataSourceStopped",
	"ActivateTriggers",
};

struct commit_msg {
	uint8_t	*buf;
	size_t	 len;
	int	 m;		/* M_COMMIT or M_REGISTER_TW */
};

struct producer_ep {
	struct event_base		*base;
	char				*name;
	char				*socket;
	uint32_t			 smb_size_hint;
	uint32_t			 smb_page_size_hint;
	struct producer_ds		*ds;
	size_t				 nds;
	struct producer_ep_ops		 ops;
	void				*arg;
	unsigned			 batch;
	unsigned			 stall_max_ms;

	struct ipc_client		*client;
	uint32_t			 sid;
	uint32_t			 mid[M_COUNT];
	int				 bound;
	int				 connected;

	struct shm_region		 region;
	struct shm_arbiter		*arb;

	uint64_t			*inst;		/* set up, not stopped */
	size_t				 ninst;

	pthread_mutex_t			 qlock;
	struct commit_msg		*queue;
	size_t				 nqueue;
	struct event			*ev_commit;
	struct event			*ev_reconnect;
	pthread_t			 loop_thread;

	struct producer_ep_stats	 stats;
};

static void	ep_connect(struct producer_ep *);
static void	ep_lost(struct producer_ep *, const char *why);
static void	ep_commit_send(evutil_socket_t, short, void *);

const char *
producer_ep_default_socket(void)
{
	static char first[256];
	const char *list = ipc_sockname(IPC_PORT_PRODUCER);

	/* The variable may list several sockets: a producer uses the first. */
	if (ipc_sockname_next(&list, first, sizeof(first)) == -1)
		return ipc_sockname(IPC_PORT_PRODUCER);
	return first;
}

/* ---- sending ---- */

static void
ep_invoke(struct producer_ep *ep, int m, const ProtobufCMessage *msg,
    int flags, ipc_result_fn *cb)
{
	if (ep->client == NULL || !ep->bound || ep->mid[m] == 0) {
		log_debug("%s: %s not sent: not connected", __func__,
		    method_names[m]);
		return;
	}
	if (ipc_client_invoke_msg(ep->client, ep->sid, ep->mid[m], msg, -1,
	    flags, cb, ep) == 0)
		log_warnx("%s: %s could not be queued", __func__,
		    method_names[m]);
}

int
producer_commit_pack(const struct shm_commit *c, uint8_t **buf, size_t *len)
{
	Perfetto__Protos__CommitDataRequest req =
	    PERFETTO__PROTOS__COMMIT_DATA_REQUEST__INIT;
	Perfetto__Protos__CommitDataRequest__ChunksToMove *mv = NULL, **mvp = NULL;
	Perfetto__Protos__CommitDataRequest__ChunkToPatch *pt = NULL, **ptp = NULL;
	Perfetto__Protos__CommitDataRequest__ChunkToPatch__Patch *pa = NULL,
	    **pap = NULL;
	size_t i, k, npa = 0, ipa = 0;
	int rv = -1;

	*buf = NULL;
	*len = 0;
	for (i = 0; i < c->npatches; i++)
		npa += c->patches[i].npatches;
	if ((c->nmoves && ((mv = calloc(c->nmoves, sizeof(*mv))) == NULL ||
	    (mvp = calloc(c->nmoves, sizeof(*mvp))) == NULL)) ||
	    (c->npatches && ((pt = calloc(c->npatches, sizeof(*pt))) == NULL ||
	    (ptp = calloc(c->npatches, sizeof(*ptp))) == NULL)) ||
	    (npa && ((pa = calloc(npa, sizeof(*pa))) == NULL ||
	    (pap = calloc(npa, sizeof(*pap))) == NULL)))
		goto out;
	for (i = 0; i < c->nmoves; i++) {
		perfetto__protos__commit_data_request__chunks_to_move__init(
		    &mv[i]);
		mv[i].has_page = mv[i].has_chunk = mv[i].has_target_buffer = 1;
		mv[i].page = c->moves[i].page;
		mv[i].chunk = c->moves[i].chunk;
		mv[i].target_buffer = c->moves[i].target_buffer;
		mvp[i] = &mv[i];
	}
	for (i = 0; i < c->npatches; i++) {
		const struct shm_commit_patch *p = &c->patches[i];

		perfetto__protos__commit_data_request__chunk_to_patch__init(
		    &pt[i]);
		pt[i].has_target_buffer = pt[i].has_writer_id =
		    pt[i].has_chunk_id = 1;
		pt[i].target_buffer = p->target_buffer;
		pt[i].writer_id = p->writer_id;
		pt[i].chunk_id = p->chunk_id;
		pt[i].has_has_more_patches = 1;
		pt[i].has_more_patches = p->has_more_patches;
		pt[i].patches = pap + ipa;
		pt[i].n_patches = p->npatches;
		for (k = 0; k < p->npatches; k++, ipa++) {
			perfetto__protos__commit_data_request__chunk_to_patch__patch__init(
			    &pa[ipa]);
			pa[ipa].has_offset = pa[ipa].has_data = 1;
			pa[ipa].offset = p->patches[k].offset;
			pa[ipa].data.data = (uint8_t *)p->patches[k].data;
			pa[ipa].data.len = SHM_PATCH_SIZE;
			pap[ipa] = &pa[ipa];
		}
		ptp[i] = &pt[i];
	}
	req.chunks_to_move = mvp;
	req.n_chunks_to_move = c->nmoves;
	req.chunks_to_patch = ptp;
	req.n_chunks_to_patch = c->npatches;
	if (c->flush_request_id != 0) {
		req.has_flush_request_id = 1;
		req.flush_request_id = c->flush_request_id;
	}
	*len = perfetto__protos__commit_data_request__get_packed_size(&req);
	if ((*buf = malloc(*len ? *len : 1)) == NULL)
		goto out;
	perfetto__protos__commit_data_request__pack(&req, *buf);
	rv = 0;
out:
	free(mv);
	free(mvp);
	free(pt);
	free(ptp);
	free(pa);
	free(pap);
	return rv;
}

/* Arbiter commit batch -> packed CommitDataRequest (any thread). */
static void
ep_commit_cb(const struct shm_commit *c, void *arg)
{
	struct producer_ep *ep = arg;
	struct commit_msg *nq, m = { NULL, 0, M_COMMIT };

	if (producer_commit_pack(c, &m.buf, &m.len) == -1) {
		log_warnx("%s: out of memory, commit lost", __func__);
		return;
	}
	pthread_mutex_lock(&ep->qlock);
	nq = reallocarray(ep->queue, ep->nqueue + 1, sizeof(*nq));
	if (nq != NULL) {
		ep->queue = nq;
		ep->queue[ep->nqueue++] = m;
		m.buf = NULL;
	}
	pthread_mutex_unlock(&ep->qlock);
	/*
	 * On the loop's own thread (traced_probes, flushes) send now: a
	 * writer stalling for a free chunk must not wait for a loop turn
	 * that cannot come while it stalls.
	 */
	if (pthread_equal(pthread_self(), ep->loop_thread))
		ep_commit_send(-1, 0, ep);
	else
		event_active(ep->ev_commit, EV_TIMEOUT, 0);
	if (m.buf != NULL) {
		log_warnx("%s: out of memory, commit lost", __func__);
		free(m.buf);
	}
}

/* On the loop: sends the queued CommitData requests, in order. */
static void
ep_commit_send(evutil_socket_t fd, short what, void *arg)
{
	struct producer_ep *ep = arg;
	struct commit_msg *q;
	size_t n;

	pthread_mutex_lock(&ep->qlock);
	q = ep->queue;
	n = ep->nqueue;
	ep->queue = NULL;
	ep->nqueue = 0;
	pthread_mutex_unlock(&ep->qlock);
	for (size_t i = 0; i < n; i++) {
		if (ep->client != NULL && ep->bound &&
		    ep->mid[q[i].m] != 0 &&
		    ipc_client_invoke(ep->client, ep->sid, ep->mid[q[i].m],
		    q[i].buf, q[i].len, -1, IPC_INVOKE_DROP_REPLY, NULL,
		    NULL) != 0 && q[i].m == M_COMMIT)
			ep->stats.commits++;
		free(q[i].buf);
	}
	free(q);
}

/* ---- instances ---- */

static int
inst_find(struct producer_ep *ep, uint64_t id)
{
	for (size_t i = 0; i < ep->ninst; i++)
		if (ep->inst[i] == id)
			return (int)i;
	return -1;
}

static int
inst_add(struct producer_ep *ep, uint64_t id)
{
	uint64_t *ni;

	if (inst_find(ep, id) >= 0)
		return 0;
	if ((ni = reallocarray(ep->inst, ep->ninst + 1, sizeof(*ni))) == NULL)
		return -1;
	ep->inst = ni;
	ep->inst[ep->ninst++] = id;
	return 1;
}

static void
inst_del(struct producer_ep *ep, uint64_t id)
{
	int i = inst_find(ep, id);

	if (i >= 0)
		ep->inst[i] = ep->inst[--ep->ninst];
}

/* ---- the SMB ---- */

static void
smb_drop(struct producer_ep *ep)
{
	struct shm_arbiter_stats st;

	if (ep->arb == NULL)
		return;
	shm_arbiter_stats(ep->arb, &st);
	if (st.writers > 0) {
		/* Writers still point into it: keep it mapped. */
		log_warnx("%s: %u writers still alive, SMB kept", __func__,
		    st.writers);
		ep->arb = NULL;
		memset(&ep->region, 0, sizeof(ep->region));
		return;
	}
	shm_arbiter_free(ep->arb);
	ep->arb = NULL;
	shm_region_close(&ep->region);
}

static void
smb_setup_untrusted(struct producer_ep *ep,
    const Perfetto__Protos__GetAsyncCommandResponse__SetupTracing *st,
    int fd)
{
	struct shm_arbiter_config cfg;
	const char *cause = NULL;

	if (ep->arb != NULL) {
		log_warnx("%s: service sent a second SMB, ignored", __func__);
		if (fd >= 0)
			close(fd);
		return;
	}
	if (fd < 0) {
		log_warnx("%s: setup_tracing without a descriptor", __func__);
		return;
	}
	if (shm_region_map_untrusted(&ep->region, fd, SHM_SIZE_MAX, 0,
	    &cause) == -1) {
		log_warnx("%s: SMB: %s", __func__, cause);
		close(fd);
		return;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.page_size = st->has_shared_buffer_page_size_kb ?
	    (size_t)st->shared_buffer_page_size_kb * 1024 : 0;
	cfg.batch_chunks = ep->batch;
	cfg.stall_max_ms = ep->stall_max_ms;
	cfg.commit_cb = ep_commit_cb;
	cfg.commit_arg = ep;
	if ((ep->arb = shm_arbiter_new(ep->region.base, ep->region.size, &cfg,
	    &cause)) == NULL) {
		log_warnx("%s: SMB of %zu bytes, pages of %zu: %s", __func__,
		    ep->region.size, cfg.page_size, cause);
		shm_region_close(&ep->region);
	}
}

/* ---- GetAsyncCommand ---- */

static void
ep_command_untrusted(struct producer_ep *ep,
    const Perfetto__Protos__GetAsyncCommandResponse *cmd, int fd)
{
	uint64_t id;

	switch (cmd->cmd_case) {
	case PERFETTO__PROTOS__GET_ASYNC_COMMAND_RESPONSE__CMD_SETUP_TRACING:
		smb_setup_untrusted(ep, cmd->setup_tracing, fd);
		return;
	case PERFETTO__PROTOS__GET_ASYNC_COMMAND_RESPONSE__CMD_SETUP_DATA_SOURCE:
		id = cmd->setup_data_source->new_instance_id;
		if (inst_add(ep, id) == 1 && ep->ops.setup != NULL)
			ep->ops.setup(ep, id, cmd->setup_data_source->config,
			    ep->arg);
		break;
	case PERFETTO__PROTOS__GET_ASYNC_COMMAND_RESPONSE__CMD_START_DATA_SOURCE:
		id = cmd->start_data_source->new_instance_id;
		/* Older services start without a setup first. */
		if (inst_add(ep, id) == 1 && ep->ops.setup != NULL)
			ep->ops.setup(ep, id, cmd->start_data_source->config,
			    ep->arg);
		if (ep->ops.start != NULL)
			ep->ops.start(ep, id, cmd->start_data_source->config,
			    ep->arg);
		break;
	case PERFETTO__PROTOS__GET_ASYNC_COMMAND_RESPONSE__CMD_STOP_DATA_SOURCE:
		id = cmd->stop_data_source->instance_id;
		if (inst_find(ep, id) < 0)
			break;
		inst_del(ep, id);
		if (ep->ops.stop != NULL)
			ep->ops.stop(ep, id, ep->arg);
		break;
	case PERFETTO__PROTOS__GET_ASYNC_COMMAND_RESPONSE__CMD_FLUSH:
		if (ep->ops.flush != NULL)
			ep->ops.flush(ep, cmd->flush->request_id,
			    cmd->flush->data_source_ids,
			    cmd->flush->n_data_source_ids, ep->arg);
		else
			producer_ep_flush_done(ep, cmd->flush->request_id);
		break;
	case PERFETTO__PROTOS__GET_ASYNC_COMMAND_RESPONSE__CMD_CLEAR_INCREMENTAL_STATE:
		if (ep->ops.clear_incremental_state != NULL)
			ep->ops.clear_incremental_state(ep,
			    cmd->clear_incremental_state->data_source_ids,
			    cmd->clear_incremental_state->n_data_source_ids,
			    ep->arg);
		break;
	default:
		/* A newer service: unknown commands are skipped. */
		log_debug("%s: unknown command %d", __func__, cmd->cmd_case);
		break;
	}
	if (fd >= 0)
		close(fd);
}

static void
ep_on_command(struct ipc_client *c, struct ipc_result *res, void *arg)
{
	struct producer_ep *ep = arg;
	Perfetto__Protos__GetAsyncCommandResponse *cmd;
	int fd;

	if (!res->success) {
		ep_lost(ep, res->error ? res->error : "command stream failed");
		return;
	}
	ep->stats.commands++;
	fd = ipc_result_take_fd(res);
	cmd = perfetto__protos__get_async_command_response__unpack(NULL,
	    res->len, res->data);
	if (cmd == NULL) {
		ep->stats.bad_commands++;
		log_warnx("%s: undecodable command", __func__);
		if (fd >= 0)
			close(fd);
	} else {
		ep_command_untrusted(ep, cmd, fd);
		perfetto__protos__get_async_command_response__free_unpacked(cmd,
		    NULL);
	}
	/* The stream is meant to last; its end means the service is gone. */
	if (!res->has_more && ep->client == c)
		ep_lost(ep, "command stream ended");
}

/* ---- connection ---- */

static void
ep_on_register(struct ipc_client *c, struct ipc_result *res, void *arg)
{
	Perfetto__Protos__RegisterDataSourceResponse *r;

	if (!res->success) {
		log_warnx("%s: RegisterDataSource failed: %s", __func__,
		    res->error ? res->error : "?");
		return;
	}
	r = perfetto__protos__register_data_source_response__unpack(NULL,
	    res->len, res->data);
	if (r != NULL && r->error != NULL && *r->error != '\0')
		log_warnx("%s: RegisterDataSource: %s", __func__, r->error);
	if (r != NULL)
		perfetto__protos__register_data_source_response__free_unpacked(
		    r, NULL);
}

static void
ep_register_all(struct producer_ep *ep)
{
	Perfetto__Protos__RegisterDataSourceRequest req =
	    PERFETTO__PROTOS__REGISTER_DATA_SOURCE_REQUEST__INIT;
	Perfetto__Protos__DataSourceDescriptor d;

	for (size_t i = 0; i < ep->nds; i++) {
		perfetto__protos__data_source_descriptor__init(&d);
		d.name = (char *)ep->ds[i].name;
		d.has_will_notify_on_start = d.has_will_notify_on_stop =
		    d.has_handles_incremental_state_clear = 1;
		d.will_notify_on_start = ep->ds[i].will_notify_on_start != 0;
		d.will_notify_on_stop = ep->ds[i].will_notify_on_stop != 0;
		d.handles_incremental_state_clear =
		    ep->ds[i].handles_incremental_state_clear != 0;
		req.data_source_descriptor = &d;
		ep_invoke(ep, M_REGISTER_DS, &req.base, 0, ep_on_register);
	}
}

static void
ep_on_init(struct ipc_client *c, struct ipc_result *res, void *arg)
{
	struct producer_ep *ep = arg;

	if (!res->success) {
		ep_lost(ep, res->error ? res->error :
		    "InitializeConnection refused");
		return;
	}
	ep->connected = 1;
	ep->stats.connects++;
	log_debug("%s: %s connected to %s", __func__, ep->name, ep->socket);
	ep_register_all(ep);
	if (ep->ops.connected != NULL)
		ep->ops.connected(ep, ep->arg);
}

static void
ep_on_bind(struct ipc_client *c, const struct ipc_binding *b, void *arg)
{
	struct producer_ep *ep = arg;
	Perfetto__Protos__InitializeConnectionRequest init =
	    PERFETTO__PROTOS__INITIALIZE_CONNECTION_REQUEST__INIT;
	Perfetto__Protos__GetAsyncCommandRequest get =
	    PERFETTO__PROTOS__GET_ASYNC_COMMAND_REQUEST__INIT;

	if (b == NULL) {
		ep_lost(ep, "no " SERVICE_NAME " on this socket");
		return;
	}
	ep->sid = b->service_id;
	for (int m = 0; m < M_COUNT; m++)
		ep->mid[m] = ipc_binding_method_id(b, method_names[m]);
	if (ep->mid[M_INIT] == 0 || ep->mid[M_GET_CMD] == 0 ||
	    ep->mid[M_COMMIT] == 0) {
		ep_lost(ep, SERVICE_NAME " lacks the core methods");
		return;
	}
	ep->bound = 1;
	init.producer_name = ep->name;
	init.has_shared_memory_size_hint_bytes = 1;
	init.shared_memory_size_hint_bytes = ep->smb_size_hint;
	init.has_shared_memory_page_size_hint_bytes = 1;
	init.shared_memory_page_size_hint_bytes = ep->smb_page_size_hint;
	init.sdk_version = (char *)"faro " PACKAGE_VERSION;
	ep_invoke(ep, M_INIT, &init.base, 0, ep_on_init);
	ep_invoke(ep, M_GET_CMD, &get.base, 0, ep_on_command);
}

static void
ep_on_event(struct ipc_client *c, enum ipc_client_event what, void *arg)
{
	struct producer_ep *ep = arg;

	if (what == IPC_CLIENT_CONNECTED) {
		if (ipc_client_bind(c, SERVICE_NAME, ep_on_bind, ep) == -1)
			ep_lost(ep, "cannot bind");
		return;
	}
	if (ep->client == c)
		ep_lost(ep, "disconnected");
}

static void
ep_on_reconnect(evutil_socket_t fd, short what, void *arg)
{
	ep_connect(arg);
}

static void
ep_connect(struct producer_ep *ep)
{
	struct timeval tv = { RECONNECT_MS / 1000, (RECONNECT_MS % 1000) * 1000 };

	ep->client = ipc_client_new(ep->base, ep->socket, IPC_CLIENT_RETRY,
	    ep_on_event, ep);
	if (ep->client == NULL) {
		log_warnx("%s: cannot start a connection to %s", __func__,
		    ep->socket);
		evtimer_add(ep->ev_reconnect, &tv);
	}
}

/*
 * The service is gone (or misbehaved): stop every instance, drop the SMB,
 * tell the embedder, and connect again.
 */
static void
ep_lost(struct producer_ep *ep, const char *why)
{
	struct timeval tv = { RECONNECT_MS / 1000, (RECONNECT_MS % 1000) * 1000 };
	int was = ep->connected;

	if (ep->client == NULL)
		return;
	log_info("%s: %s: %s", __func__, ep->socket, why);
	ipc_client_free(ep->client);
	ep->client = NULL;
	ep->bound = 0;
	ep->connected = 0;
	while (ep->ninst > 0) {
		uint64_t id = ep->inst[--ep->ninst];

		if (ep->ops.stop != NULL)
			ep->ops.stop(ep, id, ep->arg);
	}
	ep_commit_send(-1, 0, ep);	/* drops what was queued */
	smb_drop(ep);
	if (was && ep->ops.disconnected != NULL)
		ep->ops.disconnected(ep, ep->arg);
	evtimer_add(ep->ev_reconnect, &tv);
}

/* ---- public ---- */

struct producer_ep *
producer_ep_new(struct event_base *base, const struct producer_ep_config *cfg,
    const char **cause)
{
	struct producer_ep *ep;

	if (cfg->name == NULL || *cfg->name == '\0') {
		*cause = "producer name missing";
		return NULL;
	}
	if ((ep = calloc(1, sizeof(*ep))) == NULL)
		goto nomem;
	ep->base = base;
	ep->region.fd = -1;
	pthread_mutex_init(&ep->qlock, NULL);
	ep->loop_thread = pthread_self();
	ep->name = strdup(cfg->name);
	ep->socket = strdup(cfg->socket ? cfg->socket :
	    producer_ep_default_socket());
	if (ep->name == NULL || ep->socket == NULL)
		goto nomem_ep;
	ep->smb_size_hint = cfg->smb_size_hint;
	ep->smb_page_size_hint = cfg->smb_page_size_hint;
	if (cfg->ops != NULL)
		ep->ops = *cfg->ops;
	ep->arg = cfg->arg;
	ep->batch = cfg->commit_batch_chunks;
	ep->stall_max_ms = cfg->stall_max_ms;
	if (cfg->nds > 0) {
		if ((ep->ds = calloc(cfg->nds, sizeof(*ep->ds))) == NULL)
			goto nomem_ep;
		for (size_t i = 0; i < cfg->nds; i++) {
			ep->ds[i] = cfg->ds[i];
			if (cfg->ds[i].name == NULL || (ep->ds[i].name =
			    strdup(cfg->ds[i].name)) == NULL) {
				ep->nds = i;
				goto nomem_ep;
			}
		}
		ep->nds = cfg->nds;
	}
	ep->ev_commit = event_new(base, -1, 0, ep_commit_send, ep);
	ep->ev_reconnect = evtimer_new(base, ep_on_reconnect, ep);
	if (ep->ev_commit == NULL || ep->ev_reconnect == NULL)
		goto nomem_ep;
	ep_connect(ep);
	return ep;
nomem_ep:
	producer_ep_free(ep);
nomem:
	*cause = "out of memory";
	return NULL;
}

void
producer_ep_free(struct producer_ep *ep)
{
	if (ep == NULL)
		return;
	if (ep->client != NULL)
		ipc_client_free(ep->client);
	ep->client = NULL;
	if (ep->ev_commit != NULL) {
		ep_commit_send(-1, 0, ep);
		event_free(ep->ev_commit);
	}
	if (ep->ev_reconnect != NULL)
		event_free(ep->ev_reconnect);
	smb_drop(ep);
	for (size_t i = 0; i < ep->nds; i++)
		free((char *)ep->ds[i].name);
	free(ep->ds);
	free(ep->inst);
	free(ep->name);
	free(ep->socket);
	pthread_mutex_destroy(&ep->qlock);
	free(ep);
}

int
producer_ep_connected(const struct producer_ep *ep)
{
	return ep->connected;
}

struct shm_writer *
producer_ep_writer_new(struct producer_ep *ep, uint32_t target_buffer,
    enum shm_exhausted_policy policy, const char **cause)
{
	Perfetto__Protos__RegisterTraceWriterRequest req =
	    PERFETTO__PROTOS__REGISTER_TRACE_WRITER_REQUEST__INIT;
	struct shm_writer *w;

	if (ep->arb == NULL) {
		*cause = "no shared memory buffer yet";
		return NULL;
	}
	if ((w = shm_writer_new(ep->arb, target_buffer, policy, cause)) ==
	    NULL)
		return NULL;
	req.has_trace_writer_id = req.has_target_buffer = 1;
	req.trace_writer_id = shm_writer_id(w);
	req.target_buffer = target_buffer;
	ep_invoke(ep, M_REGISTER_TW, &req.base, IPC_INVOKE_DROP_REPLY, NULL);
	return w;
}

struct shm_arbiter *
producer_ep_arbiter(struct producer_ep *ep)
{
	return ep->arb;
}

struct shm_writer *
producer_ep_writer_new_async(struct producer_ep *ep, struct shm_arbiter *arb,
    uint32_t target_buffer, enum shm_exhausted_policy policy,
    const char **cause)
{
	Perfetto__Protos__RegisterTraceWriterRequest req =
	    PERFETTO__PROTOS__REGISTER_TRACE_WRITER_REQUEST__INIT;
	struct commit_msg *nq, m = { NULL, 0, M_REGISTER_TW };
	struct shm_writer *w;

	if ((w = shm_writer_new(arb, target_buffer, policy, cause)) == NULL)
		return NULL;
	req.has_trace_writer_id = req.has_target_buffer = 1;
	req.trace_writer_id = shm_writer_id(w);
	req.target_buffer = target_buffer;
	m.len = perfetto__protos__register_trace_writer_request__get_packed_size(
	    &req);
	if ((m.buf = malloc(m.len ? m.len : 1)) == NULL)
		goto nomem;
	perfetto__protos__register_trace_writer_request__pack(&req, m.buf);
	/* Queued with the commits, so it reaches the service before them. */
	pthread_mutex_lock(&ep->qlock);
	nq = reallocarray(ep->queue, ep->nqueue + 1, sizeof(*nq));
	if (nq != NULL) {
		ep->queue = nq;
		ep->queue[ep->nqueue++] = m;
	}
	pthread_mutex_unlock(&ep->qlock);
	if (nq == NULL)
		goto nomem;
	event_active(ep->ev_commit, EV_TIMEOUT, 0);
	return w;
nomem:
	free(m.buf);
	shm_writer_free(w);
	*cause = "out of memory";
	return NULL;
}

int
producer_ep_add_ds(struct producer_ep *ep, const struct producer_ds *d)
{
	Perfetto__Protos__RegisterDataSourceRequest req =
	    PERFETTO__PROTOS__REGISTER_DATA_SOURCE_REQUEST__INIT;
	Perfetto__Protos__DataSourceDescriptor desc;
	struct producer_ds *nds;
	char *name;

	if (d->name == NULL || (name = strdup(d->name)) == NULL)
		return -1;
	if ((nds = reallocarray(ep->ds, ep->nds + 1, sizeof(*nds))) == NULL) {
		free(name);
		return -1;
	}
	ep->ds = nds;
	ep->ds[ep->nds] = *d;
	ep->ds[ep->nds].name = name;
	ep->nds++;
	if (!ep->connected)
		return 0;	/* registered with the others on connection */
	perfetto__protos__data_source_descriptor__init(&desc);
	desc.name = name;
	desc.has_will_notify_on_start = desc.has_will_notify_on_stop =
	    desc.has_handles_incremental_state_clear = 1;
	desc.will_notify_on_start = d->will_notify_on_start != 0;
	desc.will_notify_on_stop = d->will_notify_on_stop != 0;
	desc.handles_incremental_state_clear =
	    d->handles_incremental_state_clear != 0;
	req.data_source_descriptor = &desc;
	ep_invoke(ep, M_REGISTER_DS, &req.base, 0, ep_on_register);
	return 0;
}

void
producer_ep_writer_free(struct producer_ep *ep, struct shm_writer *w)
{
	Perfetto__Protos__UnregisterTraceWriterRequest req =
	    PERFETTO__PROTOS__UNREGISTER_TRACE_WRITER_REQUEST__INIT;

	if (w == NULL)
		return;
	req.has_trace_writer_id = 1;
	req.trace_writer_id = shm_writer_id(w);
	shm_writer_free(w);
	/* The last chunks must reach the service before the goodbye. */
	ep_commit_send(-1, 0, ep);
	ep_invoke(ep, M_UNREGISTER_TW, &req.base, IPC_INVOKE_DROP_REPLY, NULL);
}

static void
ep_notify(struct producer_ep *ep, int m, uint64_t id)
{
	Perfetto__Protos__NotifyDataSourceStartedRequest st =
	    PERFETTO__PROTOS__NOTIFY_DATA_SOURCE_STARTED_REQUEST__INIT;
	Perfetto__Protos__NotifyDataSourceStoppedRequest sp =
	    PERFETTO__PROTOS__NOTIFY_DATA_SOURCE_STOPPED_REQUEST__INIT;

	ep_commit_send(-1, 0, ep);
	if (m == M_STARTED) {
		st.has_data_source_id = 1;
		st.data_source_id = id;
		ep_invoke(ep, m, &st.base, IPC_INVOKE_DROP_REPLY, NULL);
	} else {
		sp.has_data_source_id = 1;
		sp.data_source_id = id;
		ep_invoke(ep, m, &sp.base, IPC_INVOKE_DROP_REPLY, NULL);
	}
}

void
producer_ep_notify_started(struct producer_ep *ep, uint64_t id)
{
	ep_notify(ep, M_STARTED, id);
}

void
producer_ep_notify_stopped(struct producer_ep *ep, uint64_t id)
{
	ep_notify(ep, M_STOPPED, id);
}

void
producer_ep_flush_done(struct producer_ep *ep, uint64_t request_id)
{
	Perfetto__Protos__CommitDataRequest req =
	    PERFETTO__PROTOS__COMMIT_DATA_REQUEST__INIT;

	if (ep->arb != NULL) {
		/* The ack rides on the commit of whatever is queued. */
		shm_arbiter_flush(ep->arb, request_id);
		ep_commit_send(-1, 0, ep);
		return;
	}
	req.has_flush_request_id = 1;
	req.flush_request_id = request_id;
	ep_invoke(ep, M_COMMIT, &req.base, IPC_INVOKE_DROP_REPLY, NULL);
}

int
producer_ep_activate_triggers(struct producer_ep *ep,
    const char *const *names, size_t n)
{
	Perfetto__Protos__ActivateTriggersRequest req =
	    PERFETTO__PROTOS__ACTIVATE_TRIGGERS_REQUEST__INIT;

	if (ep->client == NULL || !ep->bound)
		return -1;
	req.trigger_names = (char **)names;
	req.n_trigger_names = n;
	ep_invoke(ep, M_TRIGGERS, &req.base, IPC_INVOKE_DROP_REPLY, NULL);
	return 0;
}

void
producer_ep_stats(const struct producer_ep *ep, struct producer_ep_stats *st)
{
	*st = ep->stats;
}
