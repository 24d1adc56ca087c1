/*
 * traced sessions driven by TraceConfig: fill policies, duration,
 * triggers, detach/attach, consumer and producer loss, limits, and the
 * RPCs around them.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tt_fixture.h"
#include "protos/perfetto/ipc/consumer_port.pb-c.h"
#include "protos/perfetto/ipc/producer_port.pb-c.h"
#include "protos/perfetto/common/data_source_descriptor.pb-c.h"

static const char *ds1[] = { "tt.ds", NULL };

/* Producer "tt.producer" with "tt.ds" running in a session of cfg. */
static struct tt_instance *
running(struct tt_producer *p, struct tt_consumer *c,
    Perfetto__Protos__TraceConfig *cfg)
{
	return start_ds_session(p, c, cfg, -1);
}

static void
fill(int discard)
{
	struct tt_producer	 p;
	struct tt_consumer	 c;
	struct tt_instance	*in;
	struct shm_writer	*w;
	struct tt_trace		 t;
	Perfetto__Protos__TraceConfig *cfg = tt_config_new(64, discard, ds1);
	uint8_t			 seen[2000];
	size_t			 n, i;

	in = running(&p, &c, cfg);
	w = tt_producer_writer(&p, in->target_buffer);
	/* About 600 KiB into a 64 KiB buffer. */
	for (i = 0; i < 20; i++) {
		tt_write_packets(w, "fill", i * 100, 100, 300);
		tt_producer_commit(&p, w);
	}
	disable_and_wait(&c);
	read_trace(&c, &t);
	memset(seen, 0, sizeof(seen));
	n = tt_trace_count(&t, "fill", seen, 2000);
	ck_assert_uint_gt(n, 50);
	ck_assert_uint_lt(n, 400);
	if (discard) {
		/* The first packets are kept, the last refused. */
		ck_assert_int_eq(seen[0], 1);
		ck_assert_int_eq(seen[1999], 0);
	} else {
		ck_assert_int_eq(seen[0], 0);
		ck_assert_int_eq(seen[1999], 1);
	}
	ck_assert_uint_eq(t.nstats, 1);
	for (i = 0; i < t.npackets; i++) {
		Perfetto__Protos__TracePacket *pk = t.trace->packet[i];

		if (pk->data_case !=
		    PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACE_STATS)
			continue;
		ck_assert_uint_eq(pk->trace_stats->n_buffer_stats, 1);
		if (discard)
			ck_assert_uint_gt(pk->trace_stats->buffer_stats[0]->
			    chunks_discarded, 0);
		else
			ck_assert_uint_gt(pk->trace_stats->buffer_stats[0]->
			    chunks_overwritten, 0);
	}
	tt_trace_free(&t);
	tt_consumer_close(&c);
	tt_producer_close(&p);
	tt_config_free(cfg);
}

START_TEST(test_ring_buffer)
{
	fill(0);
}
END_TEST

START_TEST(test_discard)
{
	fill(1);
}
END_TEST

START_TEST(test_duration)
{
	struct tt_producer	 p;
	struct tt_consumer	 c;
	struct tt_instance	*in;
	struct shm_writer	*w;
	struct tt_trace		 t;
	Perfetto__Protos__TraceConfig *cfg = tt_config_new(256, 0, ds1);

	cfg->has_duration_ms = 1;
	cfg->duration_ms = 400;
	in = running(&p, &c, cfg);
	ck_assert_uint_eq(in->duration_ms, 400);
	w = tt_producer_writer(&p, in->target_buffer);
	tt_write_packets(w, "dur", 0, 10, 0);
	shm_writer_flush(w);
	/* No explicit commit: the final flush must fetch them. */
	ck_assert_int_eq(tt_wait(base, &c.enable_done, 5000), 0);
	ck_assert_int_eq(c.enable_disabled, 1);
	ck_assert_int_eq(in->stopped, 1);
	ck_assert_int_ge(p.flushes, 1);
	read_trace(&c, &t);
	ck_assert_uint_eq(tt_trace_count(&t, "dur", NULL, 0), 10);
	tt_trace_free(&t);
	tt_consumer_close(&c);
	tt_producer_close(&p);
	tt_config_free(cfg);
}
END_TEST

static Perfetto__Protos__TraceConfig *
trigger_config(int mode, uint32_t timeout_ms, uint32_t stop_delay_ms)
{
	Perfetto__Protos__TraceConfig *cfg = tt_config_new(256, 0, ds1);
	Perfetto__Protos__TraceConfig__TriggerConfig *tc;
	Perfetto__Protos__TraceConfig__TriggerConfig__Trigger *tr;

	tc = calloc(1, sizeof(*tc));
	perfetto__protos__trace_config__trigger_config__init(tc);
	tc->has_trigger_mode = 1;
	tc->trigger_mode = mode;
	tc->has_trigger_timeout_ms = 1;
	tc->trigger_timeout_ms = timeout_ms;
	tr = calloc(1, sizeof(*tr));
	perfetto__protos__trace_config__trigger_config__trigger__init(tr);
	tr->name = strdup("go");
	tr->has_stop_delay_ms = 1;
	tr->stop_delay_ms = stop_delay_ms;
	tc->n_triggers = 1;
	tc->triggers = calloc(1, sizeof(*tc->triggers));
	tc->triggers[0] = tr;
	cfg->trigger_config = tc;
	return cfg;
}

static void
activate(struct tt_producer *p, const char *name)
{
	Perfetto__Protos__ActivateTriggersRequest req =
	    PERFETTO__PROTOS__ACTIVATE_TRIGGERS_REQUEST__INIT;
	char	*names[1] = { (char *)name };
	uint8_t	 buf[256];
	size_t	 len;

	req.n_trigger_names = 1;
	req.trigger_names = names;
	len = perfetto__protos__activate_triggers_request__pack(&req, buf);
	ck_assert_int_eq(tt_producer_call(p, TT_P_TRIGGERS, buf, len), 0);
}

START_TEST(test_start_trigger)
{
	struct tt_producer	 p;
	struct tt_consumer	 c;
	struct tt_instance	*in;
	struct shm_writer	*w;
	struct tt_trace		 t;
	Perfetto__Protos__TraceConfig *cfg = trigger_config(1, 5000, 300);

	connect_producer(&p, "tt.producer", "tt.ds");
	ck_assert_int_eq(tt_consumer_connect(&c, base, td.consumer_sock), 0);
	ck_assert_int_eq(tt_consumer_enable(&c, cfg, -1), 0);
	WAIT_UNTIL(tt_producer_instance(&p, "tt.ds") != NULL);
	in = tt_producer_instance(&p, "tt.ds");
	ck_assert_ptr_nonnull(in);
	ck_assert_int_eq(in->setup, 1);
	ck_assert_int_eq(in->started, 0);	/* waits for the trigger */
	activate(&p, "nope");
	tt_spin(base, 100);
	ck_assert_int_eq(in->started, 0);
	activate(&p, "go");
	ck_assert_ptr_nonnull(wait_started(&p, "tt.ds"));
	w = tt_producer_writer(&p, in->target_buffer);
	tt_write_packets(w, "trig", 0, 5, 0);
	tt_producer_commit(&p, w);
	/* stop_delay_ms ends it. */
	ck_assert_int_eq(tt_wait(base, &c.enable_done, 5000), 0);
	read_trace(&c, &t);
	ck_assert_uint_eq(tt_trace_count(&t, "trig", NULL, 0), 5);
	tt_trace_free(&t);
	tt_consumer_close(&c);
	tt_producer_close(&p);
	tt_config_free(cfg);
}
END_TEST

START_TEST(test_start_trigger_timeout)
{
	struct tt_producer	 p;
	struct tt_consumer	 c;
	Perfetto__Protos__TraceConfig *cfg = trigger_config(1, 300, 100);

	connect_producer(&p, "tt.producer", "tt.ds");
	ck_assert_int_eq(tt_consumer_connect(&c, base, td.consumer_sock), 0);
	ck_assert_int_eq(tt_consumer_enable(&c, cfg, -1), 0);
	ck_assert_int_eq(tt_wait(base, &c.enable_done, 5000), 0);
	ck_assert_int_eq(c.enable_disabled, 1);
	ck_assert_int_eq(tt_producer_instance(&p, "tt.ds")->started, 0);
	tt_consumer_close(&c);
	tt_producer_close(&p);
	tt_config_free(cfg);
}
END_TEST

START_TEST(test_stop_trigger)
{
	struct tt_producer	 p;
	struct tt_consumer	 c;
	struct tt_instance	*in;
	struct shm_writer	*w;
	struct tt_trace		 t;
	Perfetto__Protos__TraceConfig *cfg = trigger_config(2, 20000, 200);
	size_t			 i, ntrig = 0;

	in = running(&p, &c, cfg);
	w = tt_producer_writer(&p, in->target_buffer);
	tt_write_packets(w, "stop", 0, 7, 0);
	tt_producer_commit(&p, w);
	/* Before any trigger, a read shows nothing. */
	read_trace(&c, &t);
	ck_assert_uint_eq(t.npackets, 0);
	tt_trace_free(&t);
	activate(&p, "go");
	ck_assert_int_eq(tt_wait(base, &c.enable_done, 5000), 0);
	read_trace(&c, &t);
	ck_assert_uint_eq(tt_trace_count(&t, "stop", NULL, 0), 7);
	for (i = 0; i < t.npackets; i++)
		if (t.trace->packet[i]->data_case ==
		    PERFETTO__PROTOS__TRACE_PACKET__DATA_TRIGGER &&
		    strcmp(t.trace->packet[i]->trigger->trigger_name, "go") ==
		    0)
			ntrig++;
	ck_assert_uint_eq(ntrig, 1);
	tt_trace_free(&t);
	tt_consumer_close(&c);
	tt_producer_close(&p);
	tt_config_free(cfg);
}
END_TEST

START_TEST(test_detach_attach)
{
	struct tt_producer	 p;
	struct tt_consumer	 c, c2;
	struct tt_instance	*in;
	struct shm_writer	*w;
	struct tt_trace		 t;
	struct tt_reply		 r;
	Perfetto__Protos__TraceConfig *cfg = tt_config_new(256, 0, ds1);
	Perfetto__Protos__DetachRequest dreq =
	    PERFETTO__PROTOS__DETACH_REQUEST__INIT;
	Perfetto__Protos__AttachRequest areq =
	    PERFETTO__PROTOS__ATTACH_REQUEST__INIT;
	Perfetto__Protos__AttachResponse *ares;

	in = running(&p, &c, cfg);
	dreq.key = (char *)"tt-key";
	ck_assert_int_eq(tt_consumer_call(&c, CM_DETACH, &dreq.base, -1,
	    NULL, 0), 0);
	tt_consumer_close(&c);
	tt_spin(base, 200);
	/* The session outlives its consumer. */
	ck_assert_int_eq(in->stopped, 0);
	w = tt_producer_writer(&p, in->target_buffer);
	tt_write_packets(w, "det", 0, 9, 0);
	tt_producer_commit(&p, w);

	ck_assert_int_eq(tt_consumer_connect(&c2, base, td.consumer_sock), 0);
	areq.key = (char *)"wrong";
	ck_assert_int_eq(tt_consumer_call(&c2, CM_ATTACH, &areq.base, -1,
	    NULL, 0), -1);
	areq.key = (char *)"tt-key";
	ck_assert_int_eq(tt_consumer_call(&c2, CM_ATTACH, &areq.base, -1,
	    &r, 0), 0);
	ares = perfetto__protos__attach_response__unpack(NULL, r.len, r.data);
	ck_assert_ptr_nonnull(ares);
	ck_assert_ptr_nonnull(ares->trace_config);
	ck_assert_uint_eq(ares->trace_config->buffers[0]->size_kb, 256);
	perfetto__protos__attach_response__free_unpacked(ares, NULL);
	tt_reply_free(&r);
	/* Wait for the end as the perfetto command does after attaching. */
	ck_assert_int_eq(tt_consumer_enable_notify(&c2), 0);
	disable_and_wait(&c2);
	read_trace(&c2, &t);
	ck_assert_uint_eq(tt_trace_count(&t, "det", NULL, 0), 9);
	tt_trace_free(&t);
	tt_consumer_close(&c2);
	tt_producer_close(&p);
	tt_config_free(cfg);
}
END_TEST

START_TEST(test_consumer_gone)
{
	struct tt_producer	 p;
	struct tt_consumer	 c, c2;
	struct tt_instance	*in;
	struct tt_reply		 r;
	Perfetto__Protos__TraceConfig *cfg = tt_config_new(256, 0, ds1);
	Perfetto__Protos__QueryServiceStateResponse *q;

	in = running(&p, &c, cfg);
	tt_consumer_close(&c);
	WAIT_UNTIL(in->stopped);
	ck_assert_int_eq(in->stopped, 1);
	ck_assert_int_eq(tt_consumer_connect(&c2, base, td.consumer_sock), 0);
	ck_assert_int_eq(tt_consumer_call(&c2, CM_QUERY, NULL, -1, &r, 0),
	    0);
	q = perfetto__protos__query_service_state_response__unpack(NULL,
	    r.lens[0], r.data);
	ck_assert_ptr_nonnull(q);
	ck_assert_int_eq(q->service_state->num_sessions, 0);
	ck_assert_uint_eq(q->service_state->n_producers, 1);
	ck_assert_str_eq(q->service_state->producers[0]->name, "tt.producer");
	ck_assert_uint_eq(q->service_state->n_data_sources, 1);
	ck_assert_str_eq(q->service_state->data_sources[0]->ds_descriptor->name,
	    "tt.ds");
	perfetto__protos__query_service_state_response__free_unpacked(q, NULL);
	tt_reply_free(&r);
	tt_consumer_close(&c2);
	tt_producer_close(&p);
	tt_config_free(cfg);
}
END_TEST

/* A child producer that dies (SIGKILL) with data still in its SMB. */
static void
killed_child(const char *sock, int ready_fd)
{
	struct event_base	*b = event_base_new();
	struct tt_producer	 p;
	struct tt_instance	*in = NULL;
	struct shm_writer	*w;
	char			 c = 'k';

	base = b;
	if (tt_producer_connect(&p, b, sock, "tt.victim") == -1 ||
	    tt_producer_register(&p, "tt.ds", 0, 0) == -1)
		_exit(2);
	if ((in = wait_started(&p, "tt.ds")) == NULL)
		_exit(3);
	w = tt_producer_writer(&p, in->target_buffer);
	tt_write_packets(w, "victim", 0, 50, 100);
	tt_producer_commit(&p, w);
	/* These stay in the SMB: their commits (and patches) never leave. */
	p.hold_commits = 1;
	tt_write_packets(w, "victim", 50, 30, 100);
	if (write(ready_fd, &c, 1) != 1)
		_exit(4);
	raise(SIGKILL);
	_exit(5);
}

START_TEST(test_producer_killed)
{
	struct tt_consumer	 c;
	struct tt_trace		 t;
	Perfetto__Protos__TraceConfig *cfg = tt_config_new(256, 0, ds1);
	uint8_t			 seen[80];
	int			 fds[2], status;
	pid_t			 pid;
	char			 ch;
	size_t			 n, i;

	ck_assert_int_eq(tt_consumer_connect(&c, base, td.consumer_sock), 0);
	ck_assert_int_eq(tt_consumer_enable(&c, cfg, -1), 0);
	tt_spin(base, 50);
	ck_assert_int_eq(pipe(fds), 0);
	if ((pid = fork()) == 0) {
		close(fds[0]);
		killed_child(td.producer_sock, fds[1]);
	}
	close(fds[1]);
	ck_assert_int_eq(read(fds[0], &ch, 1), 1);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFSIGNALED(status));
	/*
	 * Wait until traced has seen the death (not for a time: CI machines
	 * are slow): only then does it know the unpatched fragments the
	 * victim left will never be completed.
	 */
	ck_assert_int_eq(wait_state(&c, 0, -1), 0);
	disable_and_wait(&c);
	read_trace(&c, &t);
	memset(seen, 0, sizeof(seen));
	n = tt_trace_count(&t, "victim", seen, 80);
	/*
	 * Committed data all there. Of the 30 never committed, the scrape
	 * brings back all but the packets that straddle a chunk boundary
	 * (their size was to come as a patch) and the one still open:
	 * at most 4 boundaries at this packet size.
	 */
	for (i = 0; i < 50; i++)
		ck_assert_int_eq(seen[i], 1);
	ck_assert_uint_ge(n, 74);
	tt_trace_free(&t);
	tt_consumer_close(&c);
	tt_config_free(cfg);
	close(fds[0]);
}
END_TEST

START_TEST(test_limits_and_errors)
{
	struct tt_consumer	 c[7];
	Perfetto__Protos__TraceConfig *cfg = tt_config_new(64, 0, ds1);
	int			 i;

	/* unique_session_name */
	cfg->unique_session_name = strdup("only-one");
	ck_assert_int_eq(tt_consumer_connect(&c[0], base, td.consumer_sock),
	    0);
	ck_assert_int_eq(tt_consumer_enable(&c[0], cfg, -1), 0);
	ck_assert_int_eq(tt_consumer_connect(&c[1], base, td.consumer_sock),
	    0);
	ck_assert_int_eq(tt_consumer_enable_wait_error(&c[1], cfg, -1, 3000),
	    0);
	ck_assert_ptr_nonnull(strstr(c[1].enable_error, "unique session"));
	free(cfg->unique_session_name);
	cfg->unique_session_name = NULL;
	/* Five sessions per uid. */
	for (i = 2; i < 5; i++)
		ck_assert_int_eq(tt_consumer_connect(&c[i], base,
		    td.consumer_sock), 0);
	for (i = 1; i < 5; i++)
		ck_assert_int_eq(tt_consumer_enable(&c[i], cfg, -1), 0);
	/* Other connections' calls are not ordered with ours: wait. */
	ck_assert_int_eq(wait_state(&c[0], -1, 5), 0);
	for (i = 1; i < 5; i++)
		ck_assert_int_eq(c[i].enable_done, 0);
	ck_assert_int_eq(tt_consumer_connect(&c[5], base, td.consumer_sock),
	    0);
	ck_assert_int_eq(tt_consumer_enable_wait_error(&c[5], cfg, -1, 3000),
	    0);
	ck_assert_ptr_nonnull(strstr(c[5].enable_error, "too many"));
	/* A second session on one connection is refused. */
	ck_assert_int_eq(tt_consumer_enable_wait_error(&c[4], cfg, -1, 3000),
	    0);
	/* Bad configs. */
	ck_assert_int_eq(tt_consumer_connect(&c[6], base, td.consumer_sock),
	    0);
	tt_consumer_close(&c[0]);	/* makes room */
	ck_assert_int_eq(wait_state(&c[6], -1, 4), 0);
	cfg->data_sources[0]->config->has_target_buffer = 1;
	cfg->data_sources[0]->config->target_buffer = 3;
	ck_assert_int_eq(tt_consumer_enable_wait_error(&c[6], cfg, -1, 3000),
	    0);
	ck_assert_ptr_nonnull(strstr(c[6].enable_error, "target_buffer"));
	cfg->data_sources[0]->config->target_buffer = 0;
	cfg->has_write_into_file = 1;
	cfg->write_into_file = 1;
	ck_assert_int_eq(tt_consumer_enable_wait_error(&c[6], cfg, -1, 3000),
	    0);
	ck_assert_ptr_nonnull(strstr(c[6].enable_error, "descriptor"));
	cfg->write_into_file = 0;
	cfg->buffers[0]->size_kb = 0;
	ck_assert_int_eq(tt_consumer_enable_wait_error(&c[6], cfg, -1, 3000),
	    0);
	for (i = 1; i < 7; i++)
		tt_consumer_close(&c[i]);
	tt_config_free(cfg);
}
END_TEST

START_TEST(test_max_file_size)
{
	struct tt_producer	 p;
	struct tt_consumer	 c;
	struct tt_instance	*in;
	struct shm_writer	*w;
	struct tt_trace		 t;
	Perfetto__Protos__TraceConfig *cfg = tt_config_new(1024, 0, ds1);
	char			 path[400];
	uint8_t			*data;
	size_t			 len;
	int			 fd, i;

	cfg->has_write_into_file = cfg->write_into_file = 1;
	cfg->has_file_write_period_ms = 1;
	cfg->file_write_period_ms = 100;
	cfg->has_max_file_size_bytes = 1;
	cfg->max_file_size_bytes = 20000;
	snprintf(path, sizeof(path), "%s/capped.pftrace", td.dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	connect_producer(&p, "tt.producer", "tt.ds");
	ck_assert_int_eq(tt_consumer_connect(&c, base, td.consumer_sock), 0);
	ck_assert_int_eq(tt_consumer_enable(&c, cfg, fd), 0);
	close(fd);
	in = wait_started(&p, "tt.ds");
	ck_assert_ptr_nonnull(in);
	w = tt_producer_writer(&p, in->target_buffer);
	for (i = 0; i < 20 && !c.enable_done; i++) {
		tt_write_packets(w, "cap", i * 10, 10, 500);
		tt_producer_commit(&p, w);
		tt_spin(base, 50);
	}
	/* The cap ends the session by itself. */
	ck_assert_int_eq(tt_wait(base, &c.enable_done, 5000), 0);
	ck_assert_int_eq(tt_read_file(path, &data, &len), 0);
	ck_assert_uint_gt(len, 5000);
	ck_assert_uint_lt(len, 20000);
	ck_assert_int_eq(tt_trace_parse(&t, data, len), 0);
	ck_assert_uint_gt(tt_trace_count(&t, "cap", NULL, 0), 5);
	tt_trace_free(&t);
	free(data);
	tt_consumer_close(&c);
	tt_producer_close(&p);
	tt_config_free(cfg);
}
END_TEST

START_TEST(test_periodic_flush_and_clear)
{
	struct tt_producer	 p;
	struct tt_consumer	 c;
	Perfetto__Protos__TraceConfig *cfg = tt_config_new(256, 0, ds1);
	Perfetto__Protos__DataSourceDescriptor d =
	    PERFETTO__PROTOS__DATA_SOURCE_DESCRIPTOR__INIT;

	cfg->has_flush_period_ms = 1;
	cfg->flush_period_ms = 150;
	cfg->incremental_state_config = calloc(1,
	    sizeof(*cfg->incremental_state_config));
	perfetto__protos__trace_config__incremental_state_config__init(
	    cfg->incremental_state_config);
	cfg->incremental_state_config->has_clear_period_ms = 1;
	cfg->incremental_state_config->clear_period_ms = 150;
	ck_assert_int_eq(tt_producer_connect(&p, base, td.producer_sock,
	    "tt.producer"), 0);
	d.name = (char *)"tt.ds";
	d.has_handles_incremental_state_clear = 1;
	d.handles_incremental_state_clear = 1;
	ck_assert_int_eq(tt_producer_register_desc(&p, &d), 0);
	ck_assert_int_eq(tt_consumer_connect(&c, base, td.consumer_sock), 0);
	ck_assert_int_eq(tt_consumer_enable(&c, cfg, -1), 0);
	ck_assert_ptr_nonnull(wait_started(&p, "tt.ds"));
	WAIT_UNTIL(p.flushes >= 3 && p.clears >= 3);
	ck_assert_int_ge(p.flushes, 3);
	ck_assert_int_ge(p.clears, 3);
	disable_and_wait(&c);
	tt_consumer_close(&c);
	tt_producer_close(&p);
	tt_config_free(cfg);
}
END_TEST

/* The uid traced runs as (it may have dropped root). */
static uid_t
traced_uid(void)
{
	char	 path[64], line[256];
	FILE	*f;
	long	 uid = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)td.pid);
	if ((f = fopen(path, "r")) == NULL)
		return (uid_t)-1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "Uid: %ld", &uid) == 1)
			break;
	fclose(f);
	return (uid_t)uid;
}

/* A producer running as uid: exits 1 if it got an instance, else 0. */
static void
uid_child(const char *sock, uid_t uid)
{
	struct event_base	*b;
	struct tt_producer	 p;

	if (uid != getuid() && (setgid(uid) == -1 || setuid(uid) == -1))
		_exit(3);
	b = event_base_new();
	base = b;
	if (tt_producer_connect(&p, b, sock, "tt.other") == -1 ||
	    tt_producer_register(&p, "tt.ds", 0, 0) == -1)
		_exit(2);
	for (int i = 0; i < 300 && tt_producer_instance(&p, "tt.ds") == NULL;
	    i++)
		tt_spin(b, 5);
	_exit(tt_producer_instance(&p, "tt.ds") != NULL ? 1 : 0);
}

static int
run_as(uid_t uid)
{
	int	status;
	pid_t	pid;

	if ((pid = fork()) == 0)
		uid_child(td.producer_sock, uid);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	return WEXITSTATUS(status);
}

START_TEST(test_lockdown)
{
	struct tt_consumer	 c, c2;
	Perfetto__Protos__TraceConfig *cfg = tt_config_new(64, 0, ds1);
	uid_t			 me = traced_uid(), other;

	/* A producer of another uid than traced's: needs root to make. */
	if (getuid() != 0 || me == (uid_t)-1)
		return;
	other = me == 0 ? 65534 : 0;
	/* The producer socket is 0666: anyone may produce, but... */
	ck_assert_int_eq(chmod(td.dir, 0711), 0);
	cfg->has_lockdown_mode = 1;
	cfg->lockdown_mode =
	    PERFETTO__PROTOS__TRACE_CONFIG__LOCKDOWN_MODE_OPERATION__LOCKDOWN_SET;
	ck_assert_int_eq(tt_consumer_connect(&c, base, td.consumer_sock), 0);
	ck_assert_int_eq(tt_consumer_enable(&c, cfg, -1), 0);
	ck_assert_int_eq(wait_state(&c, -1, 1), 0);
	/* ...in lockdown only traced's own uid gets data sources. */
	ck_assert_int_eq(run_as(other), 0);
	ck_assert_int_eq(run_as(me), 1);
	disable_and_wait(&c);
	tt_consumer_close(&c);
	cfg->lockdown_mode =
	    PERFETTO__PROTOS__TRACE_CONFIG__LOCKDOWN_MODE_OPERATION__LOCKDOWN_CLEAR;
	ck_assert_int_eq(tt_consumer_connect(&c2, base, td.consumer_sock), 0);
	ck_assert_int_eq(tt_consumer_enable(&c2, cfg, -1), 0);
	ck_assert_int_eq(wait_state(&c2, -1, 1), 0);
	ck_assert_int_eq(run_as(other), 1);
	disable_and_wait(&c2);
	tt_consumer_close(&c2);
	tt_config_free(cfg);
}
END_TEST

START_TEST(test_exclusive_and_semaphores)
{
	struct tt_consumer	 a, b, c, d, e;
	Perfetto__Protos__TraceConfig *cfg = tt_config_new(64, 0, ds1);
	Perfetto__Protos__TraceConfig__SessionSemaphore sem =
	    PERFETTO__PROTOS__TRACE_CONFIG__SESSION_SEMAPHORE__INIT, *semp = &sem;

	ck_assert_int_eq(tt_consumer_connect(&a, base, td.consumer_sock), 0);
	ck_assert_int_eq(tt_consumer_connect(&b, base, td.consumer_sock), 0);
	ck_assert_int_eq(tt_consumer_connect(&c, base, td.consumer_sock), 0);
	ck_assert_int_eq(tt_consumer_connect(&d, base, td.consumer_sock), 0);
	ck_assert_int_eq(tt_consumer_connect(&e, base, td.consumer_sock), 0);
	ck_assert_int_eq(tt_consumer_enable(&a, cfg, -1), 0);
	ck_assert_int_eq(wait_state(&a, -1, 1), 0);
	/* An exclusive session ends the others... */
	cfg->has_exclusive_prio = 1;
	cfg->exclusive_prio = 5;
	ck_assert_int_eq(tt_consumer_enable(&b, cfg, -1), 0);
	ck_assert_int_eq(tt_wait(base, &a.enable_done, 5000), 0);
	ck_assert_ptr_nonnull(strstr(a.enable_error, "exclusive"));
	ck_assert_int_eq(b.enable_done, 0);
	/* ...and refuses newcomers of lower priority. */
	cfg->exclusive_prio = 0;
	ck_assert_int_eq(tt_consumer_enable_wait_error(&c, cfg, -1, 3000), 0);
	ck_assert_ptr_nonnull(strstr(c.enable_error, "exclusive"));
	ck_assert_int_eq(tt_consumer_call(&b, CM_FREE, NULL, -1, NULL, 0), 0);
	/* A semaphore with no room for others. */
	sem.name = (char *)"sem";
	sem.has_max_other_session_count = 1;
	sem.max_other_session_count = 0;
	cfg->n_session_semaphores = 1;
	cfg->session_semaphores = &semp;
	ck_assert_int_eq(tt_consumer_enable(&d, cfg, -1), 0);
	ck_assert_int_eq(wait_state(&d, -1, 1), 0);
	ck_assert_int_eq(tt_consumer_enable_wait_error(&e, cfg, -1, 3000), 0);
	ck_assert_ptr_nonnull(strstr(e.enable_error, "semaphore"));
	cfg->n_session_semaphores = 0;
	cfg->session_semaphores = NULL;
	/* A filter without bytecode is refused, as upstream. */
	cfg->trace_filter = calloc(1, sizeof(*cfg->trace_filter));
	perfetto__protos__trace_config__trace_filter__init(cfg->trace_filter);
	ck_assert_int_eq(tt_consumer_enable_wait_error(&e, cfg, -1, 3000), 0);
	ck_assert_ptr_nonnull(strstr(e.enable_error,
	    "trace filter bytecode invalid"));
	tt_consumer_close(&a);
	tt_consumer_close(&b);
	tt_consumer_close(&c);
	tt_consumer_close(&d);
	tt_consumer_close(&e);
	tt_config_free(cfg);
}
END_TEST

static Suite *
session_suite(void)
{
	Suite	*s = suite_create("traced_session");
	TCase	*tc = tcase_create("session");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_ring_buffer);
	tcase_add_test(tc, test_discard);
	tcase_add_test(tc, test_duration);
	tcase_add_test(tc, test_start_trigger);
	tcase_add_test(tc, test_start_trigger_timeout);
	tcase_add_test(tc, test_stop_trigger);
	tcase_add_test(tc, test_detach_attach);
	tcase_add_test(tc, test_consumer_gone);
	tcase_add_test(tc, test_producer_killed);
	tcase_add_test(tc, test_limits_and_errors);
	tcase_add_test(tc, test_max_file_size);
	tcase_add_test(tc, test_periodic_flush_and_clear);
	tcase_add_test(tc, test_lockdown);
	tcase_add_test(tc, test_exclusive_and_semaphores);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr = srunner_create(session_suite());
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
