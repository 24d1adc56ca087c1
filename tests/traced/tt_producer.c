/*
 * A small producer for tests: speaks ProducerPort through libipc and
 * writes into the SMB through libshm's arbiter and writers, like an app
 * would. It answers Flush by flushing its writers.
 */
#include "config.h"

#include <sys/mman.h>
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "libipc/ipc_client.h"
#include "libipc/producer_endpoint.h"
#include "libshm/shm_arbiter.h"
#include "traced_test.h"
#include "protos/perfetto/ipc/producer_port.pb-c.h"
#include "protos/perfetto/common/commit_data_request.pb-c.h"
#include "protos/perfetto/common/data_source_descriptor.pb-c.h"

#define TT_WAIT_MS	10000
#define TT_MAX_WRITERS	64

static struct shm_writer *tt_writers[TT_MAX_WRITERS];
static struct tt_producer *tt_writer_owner[TT_MAX_WRITERS];

static const char *tt_pmethods[] = {
	NULL, "InitializeConnection", "RegisterDataSource",
	"UnregisterDataSource", "CommitData", "GetAsyncCommand",
	"RegisterTraceWriter", "UnregisterTraceWriter",
	"NotifyDataSourceStarted", "NotifyDataSourceStopped",
	"ActivateTriggers", "Sync", "UpdateDataSource",
};

static void
tt_p_event(struct ipc_client *cl, enum ipc_client_event ev, void *arg)
{
	struct tt_producer	*p = arg;

	(void)cl;
	if (ev == IPC_CLIENT_DISCONNECTED)
		p->disconnected = 1;
}

static void
tt_p_bound(struct ipc_client *cl, const struct ipc_binding *b, void *arg)
{
	struct tt_producer	*p = arg;

	(void)cl;
	if (b == NULL) {
		p->failed = 1;
		return;
	}
	p->sid = b->service_id;
	for (int i = 1; i <= TT_P_UPDATE; i++)
		p->m[i] = ipc_binding_method_id(b, tt_pmethods[i]);
	p->bound = 1;
}

struct tt_call {
	int	done;
	int	success;
};

static void
tt_p_reply(struct ipc_client *cl, struct ipc_result *res, void *arg)
{
	struct tt_call	*c = arg;

	(void)cl;
	if (!res->has_more) {
		c->success = res->success;
		c->done = 1;
	}
}

int
tt_producer_call(struct tt_producer *p, int method, const void *args,
    size_t len)
{
	struct tt_call	c = { 0, 0 };

	if (ipc_client_invoke(p->cl, p->sid, p->m[method], args, len, -1, 0,
	    tt_p_reply, &c) == 0)
		return -1;
	if (tt_wait(p->base, &c.done, TT_WAIT_MS) == -1)
		return -1;
	return c.success ? 0 : -1;
}

static int
tt_p_call_msg(struct tt_producer *p, int method, const ProtobufCMessage *m)
{
	uint8_t	*buf;
	size_t	 len = protobuf_c_message_get_packed_size(m);
	int	 rc;

	if ((buf = malloc(len + 1)) == NULL)
		return -1;
	protobuf_c_message_pack(m, buf);
	rc = tt_producer_call(p, method, buf, len);
	free(buf);
	return rc;
}

int
tt_producer_notify(struct tt_producer *p, int method, uint64_t id)
{
	Perfetto__Protos__NotifyDataSourceStartedRequest r =
	    PERFETTO__PROTOS__NOTIFY_DATA_SOURCE_STARTED_REQUEST__INIT;

	/* Started and Stopped requests share their one field. */
	r.has_data_source_id = 1;
	r.data_source_id = id;
	return tt_p_call_msg(p, method, &r.base);
}

static void
tt_p_ignore(struct ipc_client *cl, struct ipc_result *res, void *arg)
{
	struct tt_producer	*p = arg;

	(void)cl;
	if (!res->has_more)
		p->pending_calls--;
}

static void	tt_p_send_commit(struct tt_producer *, const uint8_t *,
		    size_t);

/* The arbiter's batches become CommitData calls. */
static void
tt_p_commit(const struct shm_commit *sc, void *arg)
{
	struct tt_producer	*p = arg;
	uint8_t			*buf;
	size_t			 len;

	if (p->hold_commits || p->cl == NULL)
		return;		/* chunks stay in the SMB, uncommitted */
	if (producer_commit_pack(sc, &buf, &len) == -1)
		abort();	/* a test helper out of memory */
	if (p->defer_commits && p->ndeferred < (int)(sizeof(p->deferred) /
	    sizeof(p->deferred[0]))) {
		p->deferred[p->ndeferred].buf = buf;
		p->deferred[p->ndeferred++].len = len;
		return;
	}
	tt_p_send_commit(p, buf, len);
	free(buf);
}

void
tt_producer_release_commits(struct tt_producer *p)
{
	int	i;

	for (i = 0; i < p->ndeferred; i++) {
		tt_p_send_commit(p, p->deferred[i].buf, p->deferred[i].len);
		free(p->deferred[i].buf);
	}
	p->ndeferred = 0;
}

static void
tt_p_send_commit(struct tt_producer *p, const uint8_t *buf, size_t len)
{
	p->pending_calls++;
	p->commits_sent++;
	if (ipc_client_invoke(p->cl, p->sid, p->m[TT_P_COMMIT], buf, len, -1,
	    0, tt_p_ignore, p) == 0)
		p->pending_calls--;
}

static struct tt_instance *
tt_p_inst(struct tt_producer *p, uint64_t id)
{
	for (int i = 0; i < p->ninst; i++)
		if (p->inst[i].id == id)
			return &p->inst[i];
	return NULL;
}

static void
tt_p_setup_tracing(struct tt_producer *p, struct ipc_result *res,
    const Perfetto__Protos__GetAsyncCommandResponse__SetupTracing *st)
{
	struct shm_arbiter_config	 ac;
	struct stat			 sb;
	const char			*cause;
	int				 fd;

	if (p->smb_base != NULL) {
		/* Our own SMB: the service sends no descriptor. */
		p->page_size_kb = 4;
		goto arbiter;
	}
	if ((fd = ipc_result_take_fd(res)) == -1 || fstat(fd, &sb) == -1) {
		p->failed = 1;
		return;
	}
	p->smb_fd = fd;
	p->smb_size = (size_t)sb.st_size;
	p->page_size_kb = st->has_shared_buffer_page_size_kb ?
	    st->shared_buffer_page_size_kb : 4;
	p->smb_base = mmap(NULL, p->smb_size, PROT_READ | PROT_WRITE,
	    MAP_SHARED, fd, 0);
	if (p->smb_base == MAP_FAILED) {
		p->smb_base = NULL;
		p->failed = 1;
		return;
	}
arbiter:
	memset(&ac, 0, sizeof(ac));
	ac.page_size = p->page_size_kb * 1024;
	ac.layout = SHM_LAYOUT_DIV4;
	ac.commit_cb = tt_p_commit;
	ac.commit_arg = p;
	if ((p->arb = shm_arbiter_new(p->smb_base, p->smb_size, &ac,
	    &cause)) == NULL) {
		fprintf(stderr, "tt_producer: arbiter: %s\n", cause);
		p->failed = 1;
	}
}

static void
tt_p_cmd(struct ipc_client *cl, struct ipc_result *res, void *arg)
{
	struct tt_producer	*p = arg;
	Perfetto__Protos__GetAsyncCommandResponse *cmd;
	struct tt_instance	*in;

	(void)cl;
	if (!res->success) {
		p->failed = 1;
		return;
	}
	cmd = perfetto__protos__get_async_command_response__unpack(NULL,
	    res->len, res->data);
	if (cmd == NULL) {
		p->failed = 1;
		return;
	}
	switch (cmd->cmd_case) {
	case PERFETTO__PROTOS__GET_ASYNC_COMMAND_RESPONSE__CMD_SETUP_TRACING:
		tt_p_setup_tracing(p, res, cmd->setup_tracing);
		break;
	case PERFETTO__PROTOS__GET_ASYNC_COMMAND_RESPONSE__CMD_SETUP_DATA_SOURCE:
		if (p->ninst < TT_MAX_INSTANCES) {
			in = &p->inst[p->ninst++];
			memset(in, 0, sizeof(*in));
			in->id = cmd->setup_data_source->new_instance_id;
			if (cmd->setup_data_source->config != NULL) {
				const Perfetto__Protos__DataSourceConfig *c =
				    cmd->setup_data_source->config;
				snprintf(in->name, sizeof(in->name), "%s",
				    c->name ? c->name : "");
				in->target_buffer = c->target_buffer;
				in->duration_ms = c->trace_duration_ms;
			}
			in->setup = 1;
		}
		break;
	case PERFETTO__PROTOS__GET_ASYNC_COMMAND_RESPONSE__CMD_START_DATA_SOURCE:
		if ((in = tt_p_inst(p,
		    cmd->start_data_source->new_instance_id)) != NULL)
			in->started = 1;
		break;
	case PERFETTO__PROTOS__GET_ASYNC_COMMAND_RESPONSE__CMD_STOP_DATA_SOURCE:
		if ((in = tt_p_inst(p, cmd->stop_data_source->instance_id)) !=
		    NULL)
			in->stopped = 1;
		break;
	case PERFETTO__PROTOS__GET_ASYNC_COMMAND_RESPONSE__CMD_FLUSH:
		p->flushes++;
		p->last_flush_id = cmd->flush->request_id;
		if (!p->no_auto_flush && p->arb != NULL) {
			for (int i = 0; i < TT_MAX_WRITERS; i++)
				if (tt_writer_owner[i] == p)
					shm_writer_flush(tt_writers[i]);
			shm_arbiter_flush(p->arb, cmd->flush->request_id);
		}
		break;
	case PERFETTO__PROTOS__GET_ASYNC_COMMAND_RESPONSE__CMD_CLEAR_INCREMENTAL_STATE:
		p->clears++;
		break;
	default:
		break;
	}
	perfetto__protos__get_async_command_response__free_unpacked(cmd, NULL);
}

struct tt_init {
	int	done;
	int	success;
	int	accepted;
};

static void
tt_p_init_reply(struct ipc_client *cl, struct ipc_result *res, void *arg)
{
	struct tt_init	*k = arg;
	Perfetto__Protos__InitializeConnectionResponse *r;

	(void)cl;
	k->success = res->success;
	if (res->success && (r =
	    perfetto__protos__initialize_connection_response__unpack(NULL,
	    res->len, res->data)) != NULL) {
		k->accepted = r->using_shmem_provided_by_producer;
		perfetto__protos__initialize_connection_response__free_unpacked(
		    r, NULL);
	}
	k->done = 1;
}

int
tt_producer_connect(struct tt_producer *p, struct event_base *base,
    const char *sock, const char *name)
{
	return tt_producer_connect_own_smb(p, base, sock, name, 0, NULL);
}

static int	tt_p_connect(struct tt_producer *, struct event_base *,
		    const char *, const char *, size_t, int *, uint32_t,
		    uint32_t);

int
tt_producer_connect_hints(struct tt_producer *p, struct event_base *base,
    const char *sock, const char *name, uint32_t size_hint, uint32_t page_hint)
{
	return tt_p_connect(p, base, sock, name, 0, NULL, size_hint,
	    page_hint);
}

int
tt_producer_connect_own_smb(struct tt_producer *p, struct event_base *base,
    const char *sock, const char *name, size_t own_smb, int *accepted)
{
	return tt_p_connect(p, base, sock, name, own_smb, accepted, 0, 0);
}

static int
tt_p_connect(struct tt_producer *p, struct event_base *base,
    const char *sock, const char *name, size_t own_smb, int *accepted,
    uint32_t size_hint, uint32_t page_hint)
{
	Perfetto__Protos__InitializeConnectionRequest req =
	    PERFETTO__PROTOS__INITIALIZE_CONNECTION_REQUEST__INIT;
	struct shm_region	 r;
	struct tt_init		 k = { 0, 0, 0 };
	const char		*cause;

	memset(p, 0, sizeof(*p));
	p->base = base;
	p->smb_fd = -1;
	if ((p->cl = ipc_client_new(base, sock, 0, tt_p_event, p)) == NULL)
		return -1;
	if (ipc_client_bind(p->cl, "ProducerPort", tt_p_bound, p) == -1)
		return -1;
	while (!p->bound && !p->failed && !p->disconnected)
		if (tt_wait(base, &p->bound, TT_WAIT_MS) == -1)
			return -1;
	if (!p->bound)
		return -1;
	req.producer_name = (char *)name;
	if (size_hint != 0) {
		req.has_shared_memory_size_hint_bytes = 1;
		req.shared_memory_size_hint_bytes = size_hint;
	}
	if (page_hint != 0) {
		req.has_shared_memory_page_size_hint_bytes = 1;
		req.shared_memory_page_size_hint_bytes = page_hint;
	}
	if (own_smb > 0) {
		if (shm_region_create(&r, own_smb, "tt-own-smb", &cause) == -1)
			return -1;
		p->smb_fd = r.fd;
		p->smb_base = r.base;
		p->smb_size = r.size;
		req.has_producer_provided_shmem = 1;
		req.producer_provided_shmem = 1;
	}
	if (ipc_client_invoke_msg(p->cl, p->sid, p->m[TT_P_INIT], &req.base,
	    own_smb > 0 ? p->smb_fd : -1, 0, tt_p_init_reply, &k) == 0 ||
	    tt_wait(base, &k.done, TT_WAIT_MS) == -1 || !k.success)
		return -1;
	if (accepted != NULL)
		*accepted = k.accepted;
	p->initialized = 1;
	if (ipc_client_invoke(p->cl, p->sid, p->m[TT_P_GETCMD], "", 0, -1, 0,
	    tt_p_cmd, p) == 0)
		return -1;
	return tt_producer_sync(p);
}

int
tt_producer_sync(struct tt_producer *p)
{
	return tt_producer_call(p, TT_P_SYNC, "", 0);
}

void
tt_producer_close(struct tt_producer *p)
{
	for (int i = 0; i < p->ndeferred; i++)
		free(p->deferred[i].buf);
	p->ndeferred = 0;
	for (int i = 0; i < TT_MAX_WRITERS; i++)
		if (tt_writer_owner[i] == p) {
			shm_writer_free(tt_writers[i]);
			tt_writers[i] = NULL;
			tt_writer_owner[i] = NULL;
		}
	if (p->cl != NULL)
		ipc_client_free(p->cl);
	if (p->arb != NULL)
		shm_arbiter_free(p->arb);
	if (p->smb_base != NULL)
		munmap(p->smb_base, p->smb_size);
	if (p->smb_fd != -1)
		close(p->smb_fd);
	memset(p, 0, sizeof(*p));
	p->smb_fd = -1;
}

int
tt_producer_register(struct tt_producer *p, const char *ds_name,
    int notify_start, int notify_stop)
{
	Perfetto__Protos__RegisterDataSourceRequest req =
	    PERFETTO__PROTOS__REGISTER_DATA_SOURCE_REQUEST__INIT;
	Perfetto__Protos__DataSourceDescriptor d =
	    PERFETTO__PROTOS__DATA_SOURCE_DESCRIPTOR__INIT;

	d.name = (char *)ds_name;
	if (notify_start) {
		d.has_will_notify_on_start = 1;
		d.will_notify_on_start = 1;
	}
	if (notify_stop) {
		d.has_will_notify_on_stop = 1;
		d.will_notify_on_stop = 1;
	}
	req.data_source_descriptor = &d;
	return tt_p_call_msg(p, TT_P_REGISTER, &req.base);
}

int
tt_producer_register_desc(struct tt_producer *p,
    const Perfetto__Protos__DataSourceDescriptor *d)
{
	Perfetto__Protos__RegisterDataSourceRequest req =
	    PERFETTO__PROTOS__REGISTER_DATA_SOURCE_REQUEST__INIT;

	req.data_source_descriptor = (Perfetto__Protos__DataSourceDescriptor *)d;
	return tt_p_call_msg(p, TT_P_REGISTER, &req.base);
}

struct tt_instance *
tt_producer_instance(struct tt_producer *p, const char *name)
{
	for (int i = p->ninst - 1; i >= 0; i--)
		if (strcmp(p->inst[i].name, name) == 0)
			return &p->inst[i];
	return NULL;
}

struct shm_writer *
tt_producer_writer_unannounced(struct tt_producer *p, uint32_t buffer)
{
	struct shm_writer	*w;
	const char		*cause;
	int			 i;

	if (p->arb == NULL)
		return NULL;
	if ((w = shm_writer_new(p->arb, buffer, p->stall_writers ?
	    SHM_POLICY_STALL : SHM_POLICY_DROP, &cause)) == NULL)
		return NULL;
	for (i = 0; i < TT_MAX_WRITERS; i++)
		if (tt_writers[i] == NULL) {
			tt_writers[i] = w;
			tt_writer_owner[i] = p;
			break;
		}
	return w;
}

int
tt_producer_writer_announce(struct tt_producer *p, uint16_t writer_id,
    uint32_t buffer)
{
	Perfetto__Protos__RegisterTraceWriterRequest req =
	    PERFETTO__PROTOS__REGISTER_TRACE_WRITER_REQUEST__INIT;

	req.has_trace_writer_id = req.has_target_buffer = 1;
	req.trace_writer_id = writer_id;
	req.target_buffer = buffer;
	return tt_p_call_msg(p, TT_P_REGWRITER, &req.base);
}

int
tt_producer_writer_retire(struct tt_producer *p, uint16_t writer_id)
{
	Perfetto__Protos__UnregisterTraceWriterRequest req =
	    PERFETTO__PROTOS__UNREGISTER_TRACE_WRITER_REQUEST__INIT;

	req.has_trace_writer_id = 1;
	req.trace_writer_id = writer_id;
	return tt_p_call_msg(p, TT_P_UNREGWRITER, &req.base);
}

struct shm_writer *
tt_producer_writer(struct tt_producer *p, uint32_t buffer)
{
	struct shm_writer	*w;

	if ((w = tt_producer_writer_unannounced(p, buffer)) != NULL)
		tt_producer_writer_announce(p, shm_writer_id(w), buffer);
	return w;
}

void
tt_write_packets(struct shm_writer *w, const char *prefix, uint32_t first,
    uint32_t n, size_t pad)
{
	static char	 padbuf[256 * 1024];
	struct pbw	*b;

	if (padbuf[0] == 0)
		memset(padbuf, 'x', sizeof(padbuf));
	if (pad > sizeof(padbuf))
		pad = sizeof(padbuf);
	for (uint32_t i = 0; i < n; i++) {
		b = shm_writer_packet_begin(w);
		pbw_varint(b, 8, 1000 + first + i);		/* timestamp */
		pbw_nested_begin(b, 900);			/* for_testing */
		pbw_string(b, 1, prefix);			/* str */
		pbw_varint(b, 2, first + i);			/* seq_value */
		if (pad > 0) {
			pbw_nested_begin(b, 5);			/* payload */
			pbw_bytes(b, 4, padbuf, pad);		/* single_string */
			pbw_nested_end(b);
		}
		pbw_nested_end(b);
		shm_writer_packet_end(w);
	}
}

void
tt_producer_commit(struct tt_producer *p, struct shm_writer *w)
{
	shm_writer_flush(w);
	shm_arbiter_flush(p->arb, 0);
	tt_producer_sync(p);
}
