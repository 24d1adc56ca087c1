/*
 * Shared by check_ps, check_sys_stats and check_system_info: a private
 * traced (tests/traced's harness), faro's producer endpoint serving the
 * /proc and /sys data sources from probe_ds_table (as traced_probes
 * does), and a consumer session decoded with protobuf-c. Also the sample
 * loader for tests/traced_probes/data/proc_*.
 */
#ifndef FARO_CHECK_PS_SESSION_H
#define FARO_CHECK_PS_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "protos/perfetto/config/trace_config.pb-c.h"
#include "protos/perfetto/trace/trace.pb-c.h"

#include "traced_test.h"

#define PSS_MAX_INST	8

struct pss {
	struct event_base	*base;
	struct tt_traced	 td;
	struct producer_ep	*ep;
	struct tt_consumer	 c;
	int			 connected;
	int			 nstarted;
	struct {
		uint64_t			 id;
		const struct probe_ds_ops	*ops;
		void				*ds;
	} inst[PSS_MAX_INST];
	int			 ninst;
};

/* traced up, the endpoint connected, the consumer connected; 0 or -1. */
int	pss_open(struct pss *);
void	pss_close(struct pss *);

/*
 * A config with one 16 MiB buffer and the named data sources (NULL
 * terminated); fill the per-source configs in, then pss_run.
 */
Perfetto__Protos__TraceConfig *pss_config(const char *const *names);
/*
 * Enables the session, waits until every data source started, calls
 * during (may be NULL), runs the loop for run_ms, flushes, disables,
 * reads; *t holds the decoded trace (tt_trace_free). 0 or -1.
 */
int	pss_run(struct pss *, Perfetto__Protos__TraceConfig *, int run_ms,
	    void (*during)(struct pss *, void *), void *arg,
	    struct tt_trace *t);

/* A sample from tests/traced_probes/data; aborts if it is missing. */
char	*pss_sample(const char *name, size_t *len);

#endif
