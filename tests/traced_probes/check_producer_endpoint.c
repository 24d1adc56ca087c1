/*
 * check_producer_endpoint: the ProducerPort client against a service made
 * here with libipc's host, over a real socket with a real memfd SMB: the
 * connection sequence, drop_reply on the calls that upstream sends without
 * a reply, SMB setup, writers and commits, flush acks, stop, and
 * reconnection after the service goes away.
 */
#include "config.h"

#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "protos/perfetto/common/commit_data_request.pb-c.h"
#include "protos/perfetto/ipc/producer_port.pb-c.h"

#include "libipc/ipc_host.h"
#include "libipc/producer_endpoint.h"
#include "libshm/shm_abi.h"

/* ---- the fake service ---- */

struct svc {
	struct ipc_host		*host;
	char			 path[256];
	struct ipc_reply	*cmds;		/* GetAsyncCommand stream */
	struct shm_region	 smb;
	int			 inits;
	char			 producer[64];
	int			 registered;
	char			 ds_name[64];
	int			 ds_notify_stop;
	int			 drop[16];	/* drop_reply seen, per method */
	int			 calls[16];
	int			 commits;
	int			 moves;
	uint32_t		 move_page[64], move_chunk[64];
	uint32_t		 move_target[64];
	uint64_t		 flush_acked;
	int			 writers;	/* registered - unregistered */
	uint64_t		 started, stopped;
	int			 disconnects;
};

static struct svc S;

static void
note(struct ipc_call *c)
{
	if (c->method_id < 16) {
		S.calls[c->method_id]++;
		S.drop[c->method_id] += c->drop_reply;
	}
}

static void
reply_empty(struct ipc_call *c)
{
	if (!c->drop_reply)
		ipc_reply_send(c->reply, "", 0, 0, -1);
	else
		ipc_reply_free(c->reply);
}

static void
m_init(struct ipc_call *c, void *arg)
{
	Perfetto__Protos__InitializeConnectionRequest *r;

	note(c);
	r = perfetto__protos__initialize_connection_request__unpack(NULL,
	    c->args_len, c->args);
	ck_assert_ptr_nonnull(r);
	snprintf(S.producer, sizeof(S.producer), "%s",
	    r->producer_name ? r->producer_name : "");
	/* The SDK's defaults: no hints, the service picks. */
	ck_assert_uint_eq(r->shared_memory_size_hint_bytes, 0);
	perfetto__protos__initialize_connection_request__free_unpacked(r, NULL);
	S.inits++;
	reply_empty(c);
}

static void
m_register(struct ipc_call *c, void *arg)
{
	Perfetto__Protos__RegisterDataSourceRequest *r;

	note(c);
	r = perfetto__protos__register_data_source_request__unpack(NULL,
	    c->args_len, c->args);
	ck_assert_ptr_nonnull(r);
	snprintf(S.ds_name, sizeof(S.ds_name), "%s",
	    r->data_source_descriptor->name);
	S.ds_notify_stop = r->data_source_descriptor->will_notify_on_stop;
	perfetto__protos__register_data_source_request__free_unpacked(r, NULL);
	S.registered++;
	reply_empty(c);
}

static void
m_commit(struct ipc_call *c, void *arg)
{
	Perfetto__Protos__CommitDataRequest *r;

	note(c);
	r = perfetto__protos__commit_data_request__unpack(NULL, c->args_len,
	    c->args);
	ck_assert_ptr_nonnull(r);
	S.commits++;
	for (size_t i = 0; i < r->n_chunks_to_move && S.moves < 64; i++) {
		S.move_page[S.moves] = r->chunks_to_move[i]->page;
		S.move_chunk[S.moves] = r->chunks_to_move[i]->chunk;
		S.move_target[S.moves] = r->chunks_to_move[i]->target_buffer;
		S.moves++;
	}
	if (r->has_flush_request_id)
		S.flush_acked = r->flush_request_id;
	perfetto__protos__commit_data_request__free_unpacked(r, NULL);
	reply_empty(c);
}

static void
m_getcmd(struct ipc_call *c, void *arg)
{
	note(c);
	S.cmds = c->reply;
}

static void
m_reg_writer(struct ipc_call *c, void *arg)
{
	note(c);
	S.writers++;
	reply_empty(c);
}

static void
m_unreg_writer(struct ipc_call *c, void *arg)
{
	note(c);
	S.writers--;
	reply_empty(c);
}

static void
m_started(struct ipc_call *c, void *arg)
{
	Perfetto__Protos__NotifyDataSourceStartedRequest *r;

	note(c);
	r = perfetto__protos__notify_data_source_started_request__unpack(NULL,
	    c->args_len, c->args);
	S.started = r->data_source_id;
	perfetto__protos__notify_data_source_started_request__free_unpacked(r,
	    NULL);
	reply_empty(c);
}

static void
m_stopped(struct ipc_call *c, void *arg)
{
	Perfetto__Protos__NotifyDataSourceStoppedRequest *r;

	note(c);
	r = perfetto__protos__notify_data_source_stopped_request__unpack(NULL,
	    c->args_len, c->args);
	S.stopped = r->data_source_id;
	perfetto__protos__notify_data_source_stopped_request__free_unpacked(r,
	    NULL);
	reply_empty(c);
}

static void
svc_disconnect(const struct ipc_peer *p, void *arg)
{
	S.disconnects++;
	if (S.cmds != NULL)
		ipc_reply_free(S.cmds);
	S.cmds = NULL;
}

/* Method ids, 1-based in declaration order (producer_port.proto). */
enum { MID_INIT = 1, MID_REGISTER = 2, MID_COMMIT = 4, MID_GETCMD = 5,
	MID_REG_TW = 6, MID_UNREG_TW = 7, MID_STARTED = 8, MID_STOPPED = 9 };

static void
svc_start(struct event_base *base)
{
	ipc_method_fn *h[16] = { NULL };

	h[MID_INIT - 1] = m_init;
	h[MID_REGISTER - 1] = m_register;
	h[MID_COMMIT - 1] = m_commit;
	h[MID_GETCMD - 1] = m_getcmd;
	h[MID_REG_TW - 1] = m_reg_writer;
	h[MID_UNREG_TW - 1] = m_unreg_writer;
	h[MID_STARTED - 1] = m_started;
	h[MID_STOPPED - 1] = m_stopped;
	ck_assert_int_ge(
	    (int)perfetto__protos__producer_port__descriptor.n_methods, 9);
	S.host = ipc_host_new(base);
	ck_assert_ptr_nonnull(S.host);
	ck_assert_int_gt(ipc_host_add_service_pbc(S.host,
	    &perfetto__protos__producer_port__descriptor, h, svc_disconnect,
	    NULL), 0);
	ck_assert_msg(ipc_host_listen(S.host, S.path, 0600, NULL) == 0, "%s",
	    ipc_host_strerror(S.host));
}

static void
svc_stop(void)
{
	if (S.cmds != NULL)
		ipc_reply_free(S.cmds);
	S.cmds = NULL;
	ipc_host_free(S.host);
	S.host = NULL;
}

static void
svc_send(const Perfetto__Protos__GetAsyncCommandResponse *cmd, int fd)
{
	ck_assert_ptr_nonnull(S.cmds);
	ck_assert_int_eq(ipc_reply_send_msg(S.cmds, &cmd->base, 1, fd), 0);
}

/* ---- the producer side ---- */

struct prod {
	struct producer_ep	*ep;
	struct shm_writer	*w;
	int			 connected, disconnected;
	int			 setups, starts, stops;
	uint64_t		 flush_req;
};

static struct prod P;

static void
p_connected(struct producer_ep *ep, void *arg)
{
	P.connected++;
}

static void
p_disconnected(struct producer_ep *ep, void *arg)
{
	P.disconnected++;
}

static void
p_setup(struct producer_ep *ep, uint64_t id,
    const Perfetto__Protos__DataSourceConfig *cfg, void *arg)
{
	ck_assert_str_eq(cfg->name, "linux.ftrace");
	P.setups++;
}

static void
p_start(struct producer_ep *ep, uint64_t id,
    const Perfetto__Protos__DataSourceConfig *cfg, void *arg)
{
	const char *cause = NULL;
	struct pbw *w;

	P.starts++;
	P.w = producer_ep_writer_new(ep, cfg->target_buffer,
	    SHM_POLICY_DROP, &cause);
	ck_assert_msg(P.w != NULL, "writer: %s", cause);
	for (int i = 0; i < 3; i++) {
		w = shm_writer_packet_begin(P.w);
		pbw_string(w, 900, "faro-endpoint-payload");
		shm_writer_packet_end(P.w);
	}
	producer_ep_notify_started(ep, id);
}

static void
p_stop(struct producer_ep *ep, uint64_t id, void *arg)
{
	P.stops++;
	if (P.w != NULL)
		producer_ep_writer_free(ep, P.w);
	P.w = NULL;
	producer_ep_notify_stopped(ep, id);
}

static void
p_flush(struct producer_ep *ep, uint64_t req, const uint64_t *ids, size_t n,
    void *arg)
{
	P.flush_req = req;
	if (P.w != NULL)
		shm_writer_flush(P.w);
	producer_ep_flush_done(ep, req);
}

static const struct producer_ep_ops ops = {
	.connected = p_connected,
	.disconnected = p_disconnected,
	.setup = p_setup,
	.start = p_start,
	.stop = p_stop,
	.flush = p_flush,
};

static const struct producer_ds ds[] = {
	{ "linux.ftrace", 0, 1, 0 },
};

static struct producer_ep *
p_new(struct event_base *base)
{
	struct producer_ep_config cfg;
	const char *cause = NULL;
	struct producer_ep *ep;

	memset(&cfg, 0, sizeof(cfg));
	cfg.name = "faro.test_producer";
	cfg.socket = S.path;
	cfg.ds = ds;
	cfg.nds = 1;
	cfg.ops = &ops;
	ep = producer_ep_new(base, &cfg, &cause);
	ck_assert_msg(ep != NULL, "%s", cause);
	return ep;
}

/* Runs the loop until *flag >= want, or fails after ms. */
static void
run_until(struct event_base *base, const int *flag, int want, int ms)
{
	struct timeval tick = { 0, 5000 };

	for (int t = 0; t < ms / 5 && *flag < want; t++) {
		event_base_loopexit(base, &tick);
		event_base_dispatch(base);
	}
	ck_assert_msg(*flag >= want, "timed out waiting (%d < %d)", *flag,
	    want);
}

static void
run_for(struct event_base *base, int ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

	event_base_loopexit(base, &tv);
	event_base_dispatch(base);
}

static void
setup(void)
{
	memset(&S, 0, sizeof(S));
	memset(&P, 0, sizeof(P));
	snprintf(S.path, sizeof(S.path), "/tmp/faro-ep-test.%d.sock",
	    (int)getpid());
	S.smb.fd = -1;
}

static void
teardown(void)
{
	unlink(S.path);
}

static Perfetto__Protos__DataSourceConfig dscfg;

static void
send_setup_and_start(uint64_t id)
{
	Perfetto__Protos__GetAsyncCommandResponse cmd;
	Perfetto__Protos__GetAsyncCommandResponse__SetupDataSource sds;
	Perfetto__Protos__GetAsyncCommandResponse__StartDataSource st;

	perfetto__protos__data_source_config__init(&dscfg);
	dscfg.name = (char *)"linux.ftrace";
	dscfg.has_target_buffer = 1;
	dscfg.target_buffer = 3;
	perfetto__protos__get_async_command_response__init(&cmd);
	perfetto__protos__get_async_command_response__setup_data_source__init(
	    &sds);
	sds.has_new_instance_id = 1;
	sds.new_instance_id = id;
	sds.config = &dscfg;
	cmd.cmd_case =
	    PERFETTO__PROTOS__GET_ASYNC_COMMAND_RESPONSE__CMD_SETUP_DATA_SOURCE;
	cmd.setup_data_source = &sds;
	svc_send(&cmd, -1);
	perfetto__protos__get_async_command_response__start_data_source__init(
	    &st);
	st.has_new_instance_id = 1;
	st.new_instance_id = id;
	st.config = &dscfg;
	cmd.cmd_case =
	    PERFETTO__PROTOS__GET_ASYNC_COMMAND_RESPONSE__CMD_START_DATA_SOURCE;
	cmd.start_data_source = &st;
	svc_send(&cmd, -1);
}

static void
send_setup_tracing(void)
{
	Perfetto__Protos__GetAsyncCommandResponse cmd;
	Perfetto__Protos__GetAsyncCommandResponse__SetupTracing stp;
	const char *cause;

	ck_assert_int_eq(shm_region_create(&S.smb, 64 * 1024, "faro-test",
	    &cause), 0);
	perfetto__protos__get_async_command_response__init(&cmd);
	perfetto__protos__get_async_command_response__setup_tracing__init(
	    &stp);
	stp.has_shared_buffer_page_size_kb = 1;
	stp.shared_buffer_page_size_kb = 4;
	cmd.cmd_case =
	    PERFETTO__PROTOS__GET_ASYNC_COMMAND_RESPONSE__CMD_SETUP_TRACING;
	cmd.setup_tracing = &stp;
	svc_send(&cmd, S.smb.fd);
}

static void
send_simple(int which, uint64_t id)
{
	Perfetto__Protos__GetAsyncCommandResponse cmd;
	Perfetto__Protos__GetAsyncCommandResponse__StopDataSource sp;
	Perfetto__Protos__GetAsyncCommandResponse__Flush fl;

	perfetto__protos__get_async_command_response__init(&cmd);
	if (which == 0) {
		perfetto__protos__get_async_command_response__stop_data_source__init(
		    &sp);
		sp.has_instance_id = 1;
		sp.instance_id = id;
		cmd.cmd_case =
		    PERFETTO__PROTOS__GET_ASYNC_COMMAND_RESPONSE__CMD_STOP_DATA_SOURCE;
		cmd.stop_data_source = &sp;
	} else {
		perfetto__protos__get_async_command_response__flush__init(&fl);
		fl.has_request_id = 1;
		fl.request_id = id;
		fl.n_data_source_ids = 0;
		cmd.cmd_case =
		    PERFETTO__PROTOS__GET_ASYNC_COMMAND_RESPONSE__CMD_FLUSH;
		cmd.flush = &fl;
	}
	svc_send(&cmd, -1);
}

START_TEST(full_session)
{
	struct event_base *base = event_base_new();
	struct shm_abi abi;
	struct shm_chunk_view v;
	const char *cause;
	int found = 0;

	svc_start(base);
	P.ep = p_new(base);
	run_until(base, &S.registered, 1, 5000);
	ck_assert_str_eq(S.producer, "faro.test_producer");
	ck_assert_str_eq(S.ds_name, "linux.ftrace");
	ck_assert_int_eq(S.ds_notify_stop, 1);
	run_until(base, &P.connected, 1, 2000);
	ck_assert_ptr_nonnull(S.cmds);
	/* InitializeConnection and RegisterDataSource want their replies. */
	ck_assert_int_eq(S.drop[MID_INIT], 0);
	ck_assert_int_eq(S.drop[MID_REGISTER], 0);

	send_setup_tracing();
	send_setup_and_start(7);
	run_until(base, &P.starts, 1, 2000);
	ck_assert_int_eq(P.setups, 1);
	run_until(base, &S.calls[MID_STARTED], 1, 2000);
	ck_assert_uint_eq(S.started, 7);
	ck_assert_int_eq(S.writers, 1);

	send_simple(1, 99);
	for (int t = 0; t < 400 && S.flush_acked != 99; t++)
		run_for(base, 5);
	ck_assert_uint_eq(S.flush_acked, 99);
	ck_assert_int_ge(S.moves, 1);
	ck_assert_uint_eq(S.move_target[0], 3);
	/* The moved chunk holds what the writer wrote. */
	ck_assert_int_eq(shm_abi_init(&abi, S.smb.base, S.smb.size, 4096,
	    &cause), 0);
	for (int i = 0; i < S.moves; i++) {
		ck_assert_int_eq(shm_chunk_acquire_untrusted(&abi,
		    S.move_page[i], S.move_chunk[i], &v, &cause), 0);
		if (memmem(v.payload, v.payload_size, "faro-endpoint-payload",
		    21) != NULL)
			found++;
		ck_assert_uint_eq(v.writer_id, 1);
		shm_chunk_read_done(&abi, &v);
	}
	ck_assert_int_ge(found, 1);

	send_simple(0, 7);
	run_until(base, &S.calls[MID_STOPPED], 1, 2000);
	ck_assert_uint_eq(S.stopped, 7);
	run_until(base, &S.calls[MID_UNREG_TW], 1, 2000);
	ck_assert_int_eq(S.writers, 0);
	/* Like upstream: no replies asked for after registration. */
	ck_assert_int_eq(S.drop[MID_COMMIT], S.calls[MID_COMMIT]);
	ck_assert_int_eq(S.drop[MID_REG_TW], S.calls[MID_REG_TW]);
	ck_assert_int_eq(S.drop[MID_UNREG_TW], S.calls[MID_UNREG_TW]);
	ck_assert_int_eq(S.drop[MID_STARTED], 1);
	ck_assert_int_eq(S.drop[MID_STOPPED], 1);

	producer_ep_free(P.ep);
	svc_stop();
	shm_region_close(&S.smb);
	event_base_free(base);
}
END_TEST

START_TEST(reconnects_after_service_restart)
{
	struct event_base *base = event_base_new();
	struct producer_ep_stats st;

	/* The producer may start before the service. */
	P.ep = p_new(base);
	run_for(base, 50);
	ck_assert_int_eq(P.connected, 0);
	svc_start(base);
	run_until(base, &S.registered, 1, 5000);
	send_setup_tracing();
	send_setup_and_start(11);
	run_until(base, &P.starts, 1, 2000);

	/* Service dies: the instance is stopped, the writer freed. */
	svc_stop();
	shm_region_close(&S.smb);
	run_until(base, &P.disconnected, 1, 2000);
	ck_assert_int_eq(P.stops, 1);
	ck_assert_ptr_null(P.w);
	ck_assert_int_eq(producer_ep_connected(P.ep), 0);

	/* A new service: everything is registered again. */
	svc_start(base);
	run_until(base, &S.registered, 2, 10000);
	run_until(base, &P.connected, 2, 2000);
	ck_assert_int_eq(S.inits, 2);
	producer_ep_stats(P.ep, &st);
	ck_assert_uint_eq(st.connects, 2);

	producer_ep_free(P.ep);
	svc_stop();
	event_base_free(base);
}
END_TEST

START_TEST(default_socket)
{
	/* A list, as the service accepts: a producer takes the first. */
	setenv("PERFETTO_PRODUCER_SOCK_NAME",
	    "/tmp/some-producer.sock,/tmp/other.sock", 1);
	ck_assert_str_eq(producer_ep_default_socket(), "/tmp/some-producer.sock");
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("producer_endpoint");
	TCase *tc = tcase_create("endpoint");
	SRunner *sr;
	int failed;

	signal(SIGPIPE, SIG_IGN);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, full_session);
	tcase_add_test(tc, reconnects_after_service_restart);
	tcase_add_test(tc, default_socket);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
