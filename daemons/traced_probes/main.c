/*
 * traced_probes: the OS producer. Connects to traced's producer socket,
 * registers the data sources below and serves the sessions that use them.
 *
 *   traced_probes [-dv] [--user USER] [--no-privsep] [--sandbox-debug]
 *                 [--run-dir DIR]
 *                 [--producer-socket PATH]
 *   traced_probes --cleanup-after-crash [--run-dir DIR]
 *
 * Two processes: the privileged broker (the original process, root) finds
 * or mounts tracefs, then serves the tracefs accesses of a worker, checking
 * each path (tfs.h); the worker drops to USER ("traced") with no
 * capabilities and does everything else: the producer connection, the
 * kernel data parsing. When the worker exits, for any reason, the broker
 * replays the controller's state files so tracefs is left as it was found.
 *
 * The run directory keeps those state files, so a traced_probes that died
 * whole can be followed by one (or by --cleanup-after-crash) that puts
 * tracefs back.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "ftrace/controller.h"
#include "ftrace/ftrace_ds.h"
#include "ftrace/source.h"
#include "daemons/traced_probes/probe_ds.h"
#include "ps/procfs.h"
#include "ps/ps_ds.h"
#include "base/log.h"
#include "daemons/traced_probes/sandbox.h"
#include "libipc/producer_endpoint.h"
#include "daemons/traced_probes/broker.h"
#include "tfs.h"

#define RUN_DIR_DEFAULT		"/run/traced_probes"
#define RUN_DIR_FALLBACK	"/tmp/traced_probes"
#define PRODUCER_NAME		"perfetto.traced_probes"
/* Like upstream's traced_probes: ftrace bursts need a larger SMB. */
#define SMB_SIZE_HINT		(2 * 1024 * 1024)
#define SMB_PAGE_SIZE_HINT	(32 * 1024)
/* A writer waits this long for traced to free a chunk, then drops. */
#define SMB_STALL_MAX_MS	100
#define WORKER_USER		"traced"
/* Replies carry whole format files: room for the largest we read. */
#define BROKER_SOCKBUF		(512 * 1024)

/* A running data source instance. */
struct instance {
	uint64_t		 id;
	struct ftrace_ds	*ftrace;
	const struct probe_ds_ops *ops;	/* the /proc and /sys ones */
	void			*ds;
	struct instance		*next;
};

struct probes {
	struct event_base	*base;
	struct ftrace_host	*ftrace;
	struct producer_ep	*ep;
	struct instance		*insts;
	struct event		*ev_broker;	/* its end of our socket */
	int			 broker_lost;
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
	if (probe_ds_find(cfg->name) != NULL) {
		if ((in = calloc(1, sizeof(*in))) == NULL) {
			log_warnx("%s: out of memory", __func__);
			return;
		}
		in->id = id;
		in->ops = probe_ds_find(cfg->name);
		in->ds = in->ops->start(p->base, ep, id, cfg);
		in->next = p->insts;
		p->insts = in;
		return;
	}
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
		if (in->ds != NULL)
			in->ops->stop(in->ds);
		if (in->ops == NULL)
			producer_ep_notify_stopped(ep, id);
		free(in);
		return;
	}
	producer_ep_notify_stopped(ep, id);
}

static void
inst_flush(struct instance *in)
{
	if (in->ftrace != NULL)
		ftrace_ds_flush(in->ftrace);
	if (in->ds != NULL)
		in->ops->flush(in->ds);
}

static void
on_clear(struct producer_ep *ep, const uint64_t *ids, size_t nids,
    void *arg)
{
	struct probes *p = arg;
	struct instance *in;

	for (size_t i = 0; i < nids; i++)
		if ((in = inst_find(p, ids[i])) != NULL && in->ds != NULL &&
		    in->ops->clear_incremental_state != NULL)
			in->ops->clear_incremental_state(in->ds);
}

static void
on_flush(struct producer_ep *ep, uint64_t req, const uint64_t *ids,
    size_t nids, void *arg)
{
	struct probes *p = arg;
	struct instance *in;

	/* Drain what the kernel has now, then acknowledge. */
	for (size_t i = 0; i < nids; i++)
		if ((in = inst_find(p, ids[i])) != NULL)
			inst_flush(in);
	if (nids == 0)
		for (in = p->insts; in != NULL; in = in->next)
			inst_flush(in);
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
	.clear_incremental_state = on_clear,
};

/* The broker's /proc operations, for the ps probes (ps/procfs.h). */
static const struct procfs_pid_ops broker_pid_ops = {
	.open = tfs_open_proc,
	.list = tfs_list_proc,
};

/*
 * In the worker: the ps probes read other processes through the broker
 * only when /proc hides them from us (hidepid=); with a plain /proc they
 * keep the direct path, which costs no round trip.
 */
static void
worker_proc_setup(void)
{
	char mode[40];

#ifdef FARO_TEST_HOOKS
	const char *v = getenv("FARO_TEST_PROC_DIRECT");

	/* Tests show what the worker would miss on its own. */
	if (v != NULL && strcmp(v, "1") == 0) {
		log_info("%s: test hook: /proc read directly", __func__);
		return;
	}
#endif
	switch (procfs_pids_hidden((uint32_t)getegid(), mode, sizeof(mode))) {
	case 1:
		log_info("/proc has hidepid=%s: reading other processes "
		    "through the broker", mode);
		procfs_use_pid_ops(&broker_pid_ops);
		break;
	case -1:
		log_warnx("%s: cannot read how /proc is mounted: reading it "
		    "directly", __func__);
		break;
	}
}

static __attribute__((noreturn)) void
usage(void)
{
	fprintf(stderr, "usage: traced_probes [-dv] [--user user] "
	    "[--no-privsep] [--sandbox-debug]\n"
	    "                     [--run-dir dir] [--producer-socket path]\n"
	    "       traced_probes --cleanup-after-crash [--run-dir dir]\n");
	exit(1);
}

static volatile sig_atomic_t worker_pid;

static void
broker_forward(int sig)
{
	if (worker_pid > 0)
		kill((pid_t)worker_pid, sig);
}

/*
 * The broker never speaks first: our socket to it turns readable only
 * when it is gone (killed, crashed). Without it nothing is left to do,
 * and nobody would put tracefs back: stop, and say why.
 */
static void
on_broker_gone(evutil_socket_t fd, short what, void *arg)
{
	struct probes *p = arg;

	log_warnx("broker gone: stopping (the state files in the run "
	    "directory let the next start put tracefs back)");
	p->broker_lost = 1;
	event_del(p->ev_broker);
	event_base_loopbreak(p->base);
}

/*
 * Forks the worker. In the broker, serves it until it exits, restores
 * tracefs, and exits with its status; returns only in the worker, with
 * its socket to the broker.
 */
static int
privsep_start(const char *top, const char *run_dir,
    struct proc_sandbox_opts *sbo)
{
	struct sigaction sa;
	struct passwd *pw;
	const char *cause = NULL;
	int sv[2], status, buf = BROKER_SOCKBUF, n;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1)
		fatal("socketpair");
	for (int i = 0; i < 2; i++) {
		(void)setsockopt(sv[i], SOL_SOCKET, SO_SNDBUFFORCE, &buf,
		    sizeof(buf));
		(void)setsockopt(sv[i], SOL_SOCKET, SO_RCVBUFFORCE, &buf,
		    sizeof(buf));
	}
	/* As proc_sandbox_run() picks it: without the default account
	 * the worker keeps root's uid, with no capabilities. */
	pw = getpwnam(sbo->user != NULL ? sbo->user : WORKER_USER);
	if ((pid = fork()) == -1)
		fatal("fork");
	if (pid == 0) {
		close(sv[0]);
		tfs_use_broker(sv[1]);
		/* The worker writes the controller's state files. */
		if (pw != NULL && chown(run_dir, pw->pw_uid, pw->pw_gid) == -1)
			fatal("chown %s", run_dir);
		/* No capabilities, no new privileges, seccomp (sandbox.c). */
		if (traced_probes_sandbox(sbo, NULL, &cause) == -1)
			fatal("sandbox: %s", cause);
		return sv[1];
	}
	close(sv[1]);
	worker_pid = pid;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = broker_forward;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* The broker keeps root's uid and two to four capabilities
	 * (sandbox.c). */
	if (traced_probes_broker_sandbox(sbo, &cause) == -1)
		fatal("broker sandbox: %s", cause);
	if (broker_serve(sv[0], top) == -1)
		log_warnx("broker: bad request stream, worker stopped");
	close(sv[0]);
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	/* Whatever the worker left on (a crash): put it back. */
	if ((n = ftrace_ctl_cleanup(run_dir, &cause)) > 0)
		log_warnx("worker left tracefs changed: %d state file(s) "
		    "replayed", n);
	if (WIFSIGNALED(status))
		fatalx("worker killed by signal %d", WTERMSIG(status));
	exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
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
		{ "user", required_argument, NULL, 'u' },
		{ "no-privsep", no_argument, NULL, 'N' },
		{ "sandbox-debug", no_argument, NULL, 'D' },
		{ "debug", no_argument, NULL, 'd' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	struct producer_ep_config cfg;
	struct proc_signals *sigs;
	struct probes p;
	const char *run_dir = NULL, *sock = NULL, *cause = NULL;
	struct proc_sandbox_opts sbo;
	char top[TFS_PATH_MAX];
	int ch, cleanup = 0, verbose = 0, privsep = 1, n, broker = -1;

	proc_sandbox_opts_init(&sbo);
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
		case 'u':
			sbo.user = optarg;
			break;
		case 'D':
			sbo.debug = 1;
			break;
		case 'N':
			privsep = 0;
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

	/* Privileged part: find tracefs, put back what a crash left. */
	if (tfs_find(top, sizeof(top), 1, &cause) == -1)
		fatalx("tracefs: %s", cause);
	if (ftrace_ctl_cleanup(run_dir, &cause) == -1)
		fatalx("cleanup: %s: %s", run_dir, cause);
	if (privsep) {
		broker = privsep_start(top, run_dir, &sbo);
		worker_proc_setup();
	}

	memset(&p, 0, sizeof(p));
	if ((p.base = event_base_new()) == NULL)
		fatalx("event_base_new failed");
	if (broker != -1 && ((p.ev_broker = event_new(p.base, broker,
	    EV_READ | EV_PERSIST, on_broker_gone, &p)) == NULL ||
	    event_add(p.ev_broker, NULL) == -1))
		fatalx("broker event");
	/* The worker is confined already (--no-privsep: not at all, a
	 * debugging mode); test builds may arm a forbidden syscall. */
	proc_sandbox_test_hook(p.base);
	if ((p.ftrace = ftrace_host_new(p.base, top, run_dir, &cause)) == NULL)
		fatalx("ftrace: %s", cause);
	if ((sigs = proc_signals_new(p.base, on_term, NULL, &p)) == NULL)
		fatalx("signals");

	memset(&cfg, 0, sizeof(cfg));
	cfg.name = PRODUCER_NAME;
	cfg.socket = sock;
	cfg.smb_size_hint = SMB_SIZE_HINT;
	cfg.smb_page_size_hint = SMB_PAGE_SIZE_HINT;
	cfg.stall_max_ms = SMB_STALL_MAX_MS;
	cfg.ds = data_sources;
	cfg.nds = sizeof(data_sources) / sizeof(data_sources[0]);
	cfg.ops = &ep_ops;
	cfg.arg = &p;
	if ((p.ep = producer_ep_new(p.base, &cfg, &cause)) == NULL)
		fatalx("producer: %s", cause);
	for (size_t i = 0; i < probe_ds_count; i++) {
		struct producer_ds d = { probe_ds_table[i].name, 0, 0,
		    probe_ds_table[i].handles_incremental_state_clear };

		if (producer_ep_add_ds(p.ep, &d) == -1)
			fatalx("producer: out of memory");
	}
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
		if (in->ds != NULL)
			in->ops->stop(in->ds);
		free(in);
	}
	producer_ep_free(p.ep);
	ftrace_host_free(p.ftrace);
	proc_signals_free(sigs);
	if (p.ev_broker != NULL)
		event_free(p.ev_broker);
	event_base_free(p.base);
	return p.broker_lost ? 1 : 0;
}
