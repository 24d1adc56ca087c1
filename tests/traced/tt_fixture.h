/*
 * Shared fixture of the traced Check suites: one traced per test, one
 * event base, and helpers to bring a producer's data source up.
 */
#ifndef FARO_TT_FIXTURE_H
#define FARO_TT_FIXTURE_H

#include <signal.h>

#include <check.h>
#include <event2/event.h>

#include "libshm/shm_arbiter.h"
#include "traced_test.h"
#include "protos/perfetto/ipc/consumer_port.pb-c.h"

/* Spins the loop until cond holds, for at most 20 s (slow CI machines). */
#define WAIT_UNTIL(cond) do {						\
	for (int wait_i_ = 0; wait_i_ < 4000 && !(cond); wait_i_++)	\
		tt_spin(base, 5);					\
} while (0)

static struct tt_traced		 td;
static struct event_base	*base;

static __attribute__((unused)) void
setup(void)
{
	signal(SIGPIPE, SIG_IGN);
	ck_assert_int_eq(tt_traced_start(&td, NULL), 0);
	base = event_base_new();
	ck_assert_ptr_nonnull(base);
}

static __attribute__((unused)) void
teardown(void)
{
	int	rc = tt_traced_stop(&td);

	event_base_free(base);
	/* traced must exit cleanly (an ASan report makes it fail). */
	ck_assert_int_eq(rc, 0);
}

/* Waits until producer p has a started instance of ds (NULL on timeout). */
static __attribute__((unused)) struct tt_instance *
wait_started(struct tt_producer *p, const char *ds)
{
	struct tt_instance	*in = NULL;

	for (int i = 0; i < 4000; i++) {
		if ((in = tt_producer_instance(p, ds)) != NULL &&
		    in->started && p->arb != NULL)
			return in;
		tt_spin(base, 5);
	}
	return NULL;
}

/*
 * Polls QueryServiceState until traced has nproducers producers and
 * nsessions sessions (-1: any). 0 when reached, -1 after 20 s.
 */
static __attribute__((unused)) int
wait_state(struct tt_consumer *c, int nproducers, int nsessions)
{
	Perfetto__Protos__QueryServiceStateResponse *q;
	struct tt_reply	 r;
	int		 np, ns;

	for (int i = 0; i < 2000; i++) {
		if (tt_consumer_call(c, CM_QUERY, NULL, -1, &r, 0) == -1)
			return -1;
		q = perfetto__protos__query_service_state_response__unpack(NULL,
		    r.lens[0], r.data);
		np = q != NULL ? (int)q->service_state->n_producers : -2;
		ns = q != NULL ? q->service_state->num_sessions : -2;
		if (q != NULL)
			perfetto__protos__query_service_state_response__free_unpacked(
			    q, NULL);
		tt_reply_free(&r);
		if ((nproducers == -1 || np == nproducers) &&
		    (nsessions == -1 || ns == nsessions))
			return 0;
		tt_spin(base, 10);
	}
	return -1;
}

static __attribute__((unused)) void
connect_producer(struct tt_producer *p, const char *name, const char *ds)
{
	ck_assert_int_eq(tt_producer_connect(p, base, td.producer_sock, name),
	    0);
	if (ds != NULL)
		ck_assert_int_eq(tt_producer_register(p, ds, 0, 0), 0);
}

/*
 * Producer "tt.producer" with "tt.ds", and a consumer session of cfg
 * (streaming into fd unless -1) in which it has started.
 */
static __attribute__((unused)) struct tt_instance *
start_ds_session(struct tt_producer *p, struct tt_consumer *c,
    Perfetto__Protos__TraceConfig *cfg, int fd)
{
	struct tt_instance	*in;

	connect_producer(p, "tt.producer", "tt.ds");
	ck_assert_int_eq(tt_consumer_connect(c, base, td.consumer_sock), 0);
	ck_assert_int_eq(tt_consumer_enable(c, cfg, fd), 0);
	in = wait_started(p, "tt.ds");
	ck_assert_ptr_nonnull(in);
	return in;
}

/* CloneSession on c; the response, to free with ..._free_unpacked. */
static __attribute__((unused)) Perfetto__Protos__CloneSessionResponse *
clone_session(struct tt_consumer *c,
    const Perfetto__Protos__CloneSessionRequest *req)
{
	Perfetto__Protos__CloneSessionResponse	*res;
	struct tt_reply				 r;

	ck_assert_int_eq(tt_consumer_call(c, CM_CLONE, &req->base, -1, &r,
	    0), 0);
	res = perfetto__protos__clone_session_response__unpack(NULL, r.len,
	    r.data);
	ck_assert_ptr_nonnull(res);
	tt_reply_free(&r);
	return res;
}

/* Disables the session and waits for EnableTracing's answer. */
static __attribute__((unused)) void
disable_and_wait(struct tt_consumer *c)
{
	ck_assert_int_eq(tt_consumer_call(c, CM_DISABLE, NULL, -1, NULL, 0),
	    0);
	ck_assert_int_eq(tt_wait(base, &c->enable_done, 10000), 0);
	ck_assert_int_eq(c->enable_disabled, 1);
}

/* Reads the session out and decodes it. */
static __attribute__((unused)) void
read_trace(struct tt_consumer *c, struct tt_trace *t)
{
	uint8_t	*data;
	size_t	 len;

	ck_assert_int_eq(tt_consumer_read(c, &data, &len), 0);
	ck_assert_int_eq(tt_trace_parse(t, data, len), 0);
	free(data);
}

#endif
