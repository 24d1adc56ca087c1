/*
 * traced: flags, setup in the fixed order every faro daemon follows
 * (sockets first, then confinement, then the loop), and teardown.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "base/log.h"
#include "libipc/ipc_host.h"
#include "daemons/traced/sandbox.h"
#include "traced.h"

static void
usage(void)
{
	fprintf(stderr,
	    "usage: traced [--background] [--version] [-v] [--sandbox-debug]\n"
	    "              [--sandbox-user user]\n"
	    "              [--set-socket-permissions "
	    "prod_group:prod_mode:cons_group:cons_mode]\n"
	    "Sockets: $PERFETTO_PRODUCER_SOCK_NAME (comma separated) and "
	    "$PERFETTO_CONSUMER_SOCK_NAME,\n"
	    "else /run/perfetto/traced-{producer,consumer}.sock or "
	    "/tmp/perfetto-{producer,consumer}.\n");
	exit(1);
}

static void
on_term(int signo, void *arg)
{
	struct traced	*svc = arg;

	log_info("%s: signal %d, exiting", __func__, signo);
	event_base_loopbreak(svc->base);
}

static struct ipc_host *
main_host(struct traced *svc, const char *path, int fd, mode_t mode,
    const char *group)
{
	struct ipc_host	*h;

	if ((h = ipc_host_new(svc->base)) == NULL)
		fatalx("main: ipc_host_new failed");
	if (fd != -1) {
		if (ipc_host_adopt(h, fd) == -1)
			fatalx("main: adopting socket %d: %s", fd,
			    ipc_host_strerror(h));
	} else if (ipc_host_listen(h, path, mode, group) == -1)
		fatalx("main: listening on %s: %s", path,
		    ipc_host_strerror(h));
	return h;
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "background",			no_argument, NULL, 'b' },
		{ "version",			no_argument, NULL, 'V' },
		{ "set-socket-permissions",	required_argument, NULL, 'p' },
		{ "verbose",			no_argument, NULL, 'v' },
		{ "sandbox-debug",		no_argument, NULL, 'D' },
		{ "sandbox-user",		required_argument, NULL, 'U' },
		{ NULL, 0, NULL, 0 },
	};
	struct proc_sandbox_opts sbo;
	struct traced		 svc;
	struct traced_sockets	 ts;
	struct event_base	*base;
	struct proc_signals	*sig;
	const char		*cause, *perms = NULL;
	int			 ch, background = 0, verbose = 0, i, rc;

	proc_sandbox_opts_init(&sbo);
	while ((ch = getopt_long(argc, argv, "v", longopts, NULL)) != -1) {
		switch (ch) {
		case 'D':
			sbo.debug = 1;
			break;
		case 'U':
			sbo.user = optarg;
			break;
		case 'b':
			background = 1;
			break;
		case 'V':
			printf("traced (faro) %s\n", PACKAGE_VERSION);
			return 0;
		case 'p':
			perms = optarg;
			break;
		case 'v':
			verbose++;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();

	log_init("traced", 1, verbose);
	if (sockets_resolve(&ts, &cause) == -1)
		fatalx("main: sockets: %s", cause);
	if (perms != NULL &&
	    sockets_parse_permissions(perms, &ts, &cause) == -1)
		fatalx("main: --set-socket-permissions: %s", cause);
	if ((rc = sockets_from_systemd(&ts, &cause)) == -1)
		fatalx("main: socket activation: %s", cause);
	if (background) {
		if (proc_daemonize() == -1)
			fatal("main: daemonize");
		log_init("traced", 0, verbose);
	}

	if ((base = event_base_new()) == NULL)
		fatalx("main: event_base_new failed");
	service_init(&svc, base);

	/*
	 * Sockets. Producers may be anyone (0666 unless told otherwise);
	 * consumers are limited to the owner and group of the socket.
	 */
	for (i = 0; i < ts.nproducer; i++)
		svc.producer_host[i] = main_host(&svc, ts.producer[i],
		    ts.activated ? ts.producer_fd[i] : -1,
		    ts.set_permissions ? ts.producer_mode : 0666,
		    ts.set_permissions ? ts.producer_group : NULL);
	svc.nproducer_host = ts.nproducer;
	svc.consumer_host = main_host(&svc, ts.consumer,
	    ts.activated ? ts.consumer_fd : -1,
	    ts.set_permissions ? ts.consumer_mode : 0660,
	    ts.set_permissions ? ts.consumer_group : NULL);
	for (i = 0; i < svc.nproducer_host; i++)
		if (producer_port_register(&svc, svc.producer_host[i]) == -1)
			fatalx("main: cannot serve ProducerPort");
	if (consumer_port_register(&svc, svc.consumer_host) == -1)
		fatalx("main: cannot serve ConsumerPort");

	/* Confinement: everything privileged is open; from here on none. */
	if (traced_sandbox(&sbo, base, &cause) == -1)
		fatal("main: sandbox: %s", cause);
	/* Lockdown and service packets speak of the uid traced runs as. */
	svc.uid = getuid();

	if ((sig = proc_signals_new(base, on_term, NULL, &svc)) == NULL)
		fatalx("main: signals");
	sockets_notify_fd();
	proc_notify_ready();
	if (ts.activated)
		log_info("main: serving %d socket-activated descriptors",
		    ts.nproducer + 1);
	else
		log_info("main: listening on %s (producers) and %s "
		    "(consumers)", ts.producer[0], ts.consumer);

	event_base_dispatch(base);

	proc_notify("STOPPING=1");
	service_shutdown(&svc);
	for (i = 0; i < svc.nproducer_host; i++)
		ipc_host_free(svc.producer_host[i]);
	ipc_host_free(svc.consumer_host);
	proc_signals_free(sig);
	event_base_free(base);
	free(ts.producer_list);
	return 0;
}
