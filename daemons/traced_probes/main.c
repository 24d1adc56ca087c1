/*
 * traced_probes: the OS producer. Connects to traced's producer socket,
 * registers the data sources below and serves the sessions that use them.
 *
 *   traced_probes [-dv] [--run-dir DIR] [--producer-socket PATH]
 *   traced_probes --cleanup-after-crash [--run-dir DIR]
 *
 * The run directory keeps the ftrace controller's state files, so a
 * traced_probes that died can be followed by one (or by
 * --cleanup-after-crash) that puts tracefs back as it was.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "ftrace/controller.h"
#include "ftrace/ftrace_ds.h"
#include "ftrace/source.h"
#include "log.h"
#include "proc.h"
#include "producer_endpoint.h"

#define RUN_DIR_DEFAULT		"/run/traced_probes"
#define RUN_DIR_FALLBACK	"/tmp/traced_probes"
#define PRODUCER_NAME		"perfetto.traced_probes"

/* A running data source instance. */
struct instance {
	uint64_t		 id;
	struct ftrace_ds	*ftrace;
	struct instance		*next;
};

struct probes {
	struct event_base	*base;
	struct ftrace_host	*ftrace;
	struct producer_ep	*ep;
	struct instance		*insts;
};

static const struct producer_ds data_sources[] = {
	/* start/stop are acknowledged once the kernel state is in place
	 * and once the last data is in the SMB */
	{ FTRACE_DS_NAME, 1, 1, 0 },
};

static struct instance *
inst_find(struct probes *p, uint64_t id)
{
	struct instance *in;

	for (in = p->insts; in != NULL; in = in->next)
		if (in->id == id)
			return in;
	return NULL;
}

static void
on_start(struct producer_ep *ep, uint64_t id,
    const Perfetto__Protos__DataSourceConfig *cfg, void *arg)
{
	struct probes *p = arg;
	struct instance *in;

	if (cfg == NULL || cfg->name == NULL || inst_find(p, id) != NULL)
		return;
	if (strcmp(cfg->name, FTRACE_DS_NAME) != 0) {
		log_warnx("%s: unknown data source %s", __func__, cfg->name);
		producer_ep_notify_started(ep, id);
		return;
	}
	if ((in = calloc(1, sizeof(*in))) == NULL) {
		log_warnx("%s: out of memory", __func__);
		return;
	}
	in->id = id;
	in->ftrace = ftrace_ds_start(p->ftrace, ep, id, cfg);
	in->next = p->insts;
	p->insts = in;
	/* Even a failed start is acknowledged: the session goes on. */
	producer_ep_notify_started(ep, id);
}

static void
on_stop(struct producer_ep *ep, uint64_t id, void *arg)
{
	struct probes *p = arg;
	struct instance **pp, *in;

	for (pp = &p->insts; (in = *pp) != NULL; pp = &in->next) {
		if (in->id != id)
			continue;
		*pp = in->next;
		if (in->ftrace != NULL)
			ftrace_ds_stop(in->ftrace);
		free(in);
		break;
	}
	producer_ep_notify_stopped(ep, id);
}

static void
on_flush(struct producer_ep *ep, uint64_t req, const uint64_t *ids,
    size_t nids, void *arg)
{
	struct probes *p = arg;
	struct instance *in;

	/* Drain what the kernel has now, then acknowledge. */
	for (size_t i = 0; i < nids; i++)
		if ((in = inst_find(p, ids[i])) != NULL && in->ftrace != NULL)
			ftrace_ds_flush(in->ftrace);
	if (nids == 0)
		for (in = p->insts; in != NULL; in = in->next)
			if (in->ftrace != NULL)
				ftrace_ds_flush(in->ftrace);
	producer_ep_flush_done(ep, req);
}

static void
on_connected(struct producer_ep *ep, void *arg)
{
	log_info("connected to the tracing service");
	proc_notify_ready();
}

static void
on_term(int sig, void *arg)
{
	struct probes *p = arg;

	log_info("signal %d: stopping", sig);
	event_base_loopbreak(p->base);
}

static const struct producer_ep_ops ep_ops = {
	.connected = on_connected,
	.start = on_start,
	.stop = on_stop,
	.flush = on_flush,
};

static __attribute__((noreturn)) void
usage(void)
{
	fprintf(stderr, "usage: traced_probes [-dv] [--run-dir dir] "
	    "[--producer-socket path]\n"
	    "       traced_probes --cleanup-after-crash [--run-dir dir]\n");
	exit(1);
}

static const char *
run_dir_pick(const char *want)
{
	if (want != NULL) {
		if (mkdir(want, 0700) == -1 && errno != EEXIST)
			fatal("run dir %s", want);
		return want;
	}
	if (mkdir(RUN_DIR_DEFAULT, 0700) == 0 || errno == EEXIST)
		return RUN_DIR_DEFAULT;
	if (mkdir(RUN_DIR_FALLBACK, 0700) == -1 && errno != EEXIST)
		fatal("run dir %s", RUN_DIR_FALLBACK);
	return RUN_DIR_FALLBACK;
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "cleanup-after-crash", no_argument, NULL, 'C' },
		{ "run-dir", required_argument, NULL, 'r' },
		{ "producer-socket", required_argument, NULL, 's' },
		{ "debug", no_argument, NULL, 'd' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	struct producer_ep_config cfg;
	struct proc_signals *sigs;
	struct probes p;
	const char *run_dir = NULL, *sock = NULL, *cause = NULL;
	int ch, cleanup = 0, verbose = 0, n;

	while ((ch = getopt_long(argc, argv, "dv", longopts, NULL)) != -1) {
		switch (ch) {
		case 'C':
			cleanup = 1;
			break;
		case 'r':
			run_dir = optarg;
			break;
		case 's':
			sock = optarg;
			break;
		case 'd':
		case 'v':
			verbose++;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	log_init("traced_probes", 1, verbose);
	run_dir = run_dir_pick(run_dir);
	if (cleanup) {
		if ((n = ftrace_ctl_cleanup(run_dir, &cause)) == -1)
			fatalx("cleanup: %s: %s", run_dir, cause);
		log_info("cleanup: %d state file(s) replayed", n);
		return 0;
	}

	memset(&p, 0, sizeof(p));
	if ((p.base = event_base_new()) == NULL)
		fatalx("event_base_new failed");
	/* Privileged part: find tracefs, put back what a crash left. */
	if ((p.ftrace = ftrace_host_new(p.base, run_dir, &cause)) == NULL)
		fatalx("ftrace: %s", cause);
	if ((sigs = proc_signals_new(p.base, on_term, NULL, &p)) == NULL)
		fatalx("signals");

	memset(&cfg, 0, sizeof(cfg));
	cfg.name = PRODUCER_NAME;
	cfg.socket = sock;
	cfg.ds = data_sources;
	cfg.nds = sizeof(data_sources) / sizeof(data_sources[0]);
	cfg.ops = &ep_ops;
	cfg.arg = &p;
	if ((p.ep = producer_ep_new(p.base, &cfg, &cause)) == NULL)
		fatalx("producer: %s", cause);
	log_info("tracefs at %s, state in %s, producer socket %s",
	    ftrace_host_tracefs(p.ftrace), run_dir,
	    sock ? sock : producer_ep_default_socket());

	event_base_dispatch(p.base);

	/* Leave tracefs as we found it. */
	while (p.insts != NULL) {
		struct instance *in = p.insts;

		p.insts = in->next;
		if (in->ftrace != NULL)
			ftrace_ds_stop(in->ftrace);
		free(in);
	}
	producer_ep_free(p.ep);
	ftrace_host_free(p.ftrace);
	proc_signals_free(sigs);
	event_base_free(p.base);
	return 0;
}
