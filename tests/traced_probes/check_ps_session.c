/*
 * Session harness for the /proc and /sys data sources (check_ps_session.h).
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "protos/perfetto/ipc/consumer_port.pb-c.h"

#include "daemons/traced_probes/probe_ds.h"
#include "libipc/producer_endpoint.h"
#include "check_ps_session.h"

static void
on_connected(struct producer_ep *ep, void *arg)
{
	((struct pss *)arg)->connected = 1;
}

static void
on_start(struct producer_ep *ep, uint64_t id,
    const Perfetto__Protos__DataSourceConfig *cfg, void *arg)
{
	struct pss *s = arg;
	const struct probe_ds_ops *ops = probe_ds_find(cfg->name);

	if (ops == NULL || s->ninst == PSS_MAX_INST)
		return;
	s->inst[s->ninst].id = id;
	s->inst[s->ninst].ops = ops;
	s->inst[s->ninst].ds = ops->start(s->base, ep, id, cfg);
	s->ninst++;
	s->nstarted++;
}

static void
on_stop(struct producer_ep *ep, uint64_t id, void *arg)
{
	struct pss *s = arg;

	for (int i = 0; i < s->ninst; i++) {
		if (s->inst[i].id != id)
			continue;
		if (s->inst[i].ds != NULL)
			s->inst[i].ops->stop(s->inst[i].ds);
		s->inst[i] = s->inst[--s->ninst];
		return;
	}
}

static void
on_flush(struct producer_ep *ep, uint64_t req, const uint64_t *ids,
    size_t nids, void *arg)
{
	struct pss *s = arg;

	for (int i = 0; i < s->ninst; i++)
		if (s->inst[i].ds != NULL)
			s->inst[i].ops->flush(s->inst[i].ds);
	producer_ep_flush_done(ep, req);
}

static void
on_clear(struct producer_ep *ep, const uint64_t *ids, size_t nids,
    void *arg)
{
	struct pss *s = arg;

	for (size_t k = 0; k < nids; k++)
		for (int i = 0; i < s->ninst; i++)
			if (s->inst[i].id == ids[k] && s->inst[i].ds != NULL &&
			    s->inst[i].ops->clear_incremental_state != NULL)
				s->inst[i].ops->clear_incremental_state(
				    s->inst[i].ds);
}

static const struct producer_ep_ops ops = {
	.connected = on_connected,
	.start = on_start,
	.stop = on_stop,
	.flush = on_flush,
	.clear_incremental_state = on_clear,
};

int
pss_open(struct pss *s)
{
	struct producer_ds ds[PSS_MAX_INST];
	struct producer_ep_config cfg;
	const char *cause = NULL;

	memset(s, 0, sizeof(*s));
	signal(SIGPIPE, SIG_IGN);
	if ((s->base = event_base_new()) == NULL ||
	    tt_traced_start(&s->td, NULL) == -1)
		return -1;
	for (size_t i = 0; i < probe_ds_count; i++) {
		memset(&ds[i], 0, sizeof(ds[i]));
		ds[i].name = probe_ds_table[i].name;
		ds[i].handles_incremental_state_clear =
		    probe_ds_table[i].handles_incremental_state_clear;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.name = "faro.test.probes2";
	cfg.socket = s->td.producer_sock;
	cfg.ds = ds;
	cfg.nds = probe_ds_count;
	cfg.ops = &ops;
	cfg.arg = s;
	if ((s->ep = producer_ep_new(s->base, &cfg, &cause)) == NULL) {
		fprintf(stderr, "producer_ep_new: %s\n", cause);
		return -1;
	}
	if (tt_wait(s->base, &s->connected, 10000) == -1)
		return -1;
	/* the registrations ride behind InitializeConnection */
	tt_spin(s->base, 100);
	return tt_consumer_connect(&s->c, s->base, s->td.consumer_sock);
}

void
pss_close(struct pss *s)
{
	tt_consumer_close(&s->c);
	if (s->ep != NULL)
		producer_ep_free(s->ep);
	tt_traced_stop(&s->td);
	event_base_free(s->base);
}

Perfetto__Protos__TraceConfig *
pss_config(const char *const *names)
{
	return tt_config_new(16 * 1024, 0, names);
}

int
pss_run(struct pss *s, Perfetto__Protos__TraceConfig *cfg, int run_ms,
    void (*during)(struct pss *, void *), void *arg, struct tt_trace *t)
{
	Perfetto__Protos__FlushRequest fr = PERFETTO__PROTOS__FLUSH_REQUEST__INIT;
	uint8_t *data;
	size_t len;
	int rc;

	s->nstarted = 0;
	s->c.enable_done = 0;
	if (tt_consumer_enable(&s->c, cfg, -1) == -1)
		return -1;
	for (int i = 0; i < 500 && s->nstarted < (int)cfg->n_data_sources;
	    i++)
		tt_spin(s->base, 10);
	if (s->nstarted < (int)cfg->n_data_sources) {
		fprintf(stderr, "pss_run: %d of %zu data sources started\n",
		    s->nstarted, cfg->n_data_sources);
		return -1;
	}
	if (during != NULL)
		during(s, arg);
	tt_spin(s->base, run_ms);
	fr.has_timeout_ms = 1;
	fr.timeout_ms = 5000;
	if (tt_consumer_call(&s->c, CM_FLUSH, &fr.base, -1, NULL,
	    10000) == -1 ||
	    tt_consumer_call(&s->c, CM_DISABLE, NULL, -1, NULL, 0) == -1 ||
	    tt_wait(s->base, &s->c.enable_done, 10000) == -1 ||
	    tt_consumer_read(&s->c, &data, &len) == -1)
		return -1;
	rc = tt_trace_parse(t, data, len);
	free(data);
	tt_consumer_call(&s->c, CM_FREE, NULL, -1, NULL, 5000);
	return rc;
}

char *
pss_sample(const char *name, size_t *len)
{
	const char *top = getenv("top_srcdir");
	char path[1024];
	uint8_t *data;

	snprintf(path, sizeof(path), "%s/tests/traced_probes/data/%s",
	    top ? top : ".", name);
	if (tt_read_file(path, &data, len) == -1) {
		fprintf(stderr, "%s: cannot read\n", path);
		abort();
	}
	return (char *)data;
}
