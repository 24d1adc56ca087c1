/*
 * faro's consumer connection: one run of the command against traced's
 * ConsumerPort, driven by libevent.
 *
 *   connect --> bind "ConsumerPort" --> by mode:
 *
 *   trace       [ObserveEvents] EnableTracing(config, fd if write_into_file)
 *               ... reply arrives when the session ends
 *               --> write_into_file ? done : ReadBuffers* --> file --> done
 *               SIGINT/SIGTERM: Flush --> DisableTracing (then as above)
 *   --detach    EnableTracing, Detach(key) --> exit 0
 *   --attach    Attach(key) --> EnableTracing(attach_notification_only)
 *               [--stop: Flush --> DisableTracing] --> done
 *   --is_detached  Attach(key) --> Detach(key): 0; attach refused: 2
 *   --clone     CloneSession(fd) --> was_write_into_file ? done
 *               : ReadBuffers* --> done
 *   --query     QueryServiceState* --> print
 */
#ifndef FARO_CLI_CONSUMER_H
#define FARO_CLI_CONSUMER_H

#include "protos/perfetto/config/trace_config.pb-c.h"

#include "cli/flags.h"
#include "cli/output.h"

struct event_base;

/* Descriptors to tell once the session's data sources have started. */
struct consumer_notify {
	int	notify_fd;	/* --notify-fd, -1 if none */
	int	bg_fd;		/* -D pipe to the waiting parent, -1 if none */
};

/* Status bytes of --notify-fd and -D, as upstream writes them. */
#define CONSUMER_WAIT_OK	0
#define CONSUMER_WAIT_ERROR	1
#define CONSUMER_WAIT_TIMEOUT	2

/*
 * Runs one command to its end and returns faro's exit code. cfg (trace
 * mode only, else NULL) and out (NULL for attach, is_detached, query)
 * stay owned by the caller; out is closed on return.
 */
int	consumer_run(struct event_base *, const struct faro_opts *,
	    Perfetto__Protos__TraceConfig *cfg, struct output *out,
	    struct consumer_notify *);

/* Sends a status byte to each notify descriptor not yet told; closes them. */
void	consumer_notify_send(struct consumer_notify *, int status);

#endif
