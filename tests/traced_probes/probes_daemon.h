/*
 * The real traced_probes for test suites: started on a private traced's
 * producer socket (tests/traced's harness) and stopped with SIGTERM, as
 * an operator would. check_ps_daemon, check_probes_e2e and
 * check_procbroker share it.
 */
#ifndef FARO_PROBES_DAEMON_H
#define FARO_PROBES_DAEMON_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

struct event_base;
struct tt_consumer;
struct tt_trace;
struct tt_traced;

/*
 * Forks and execs $top_builddir/daemons/traced_probes/traced_probes
 * --run-dir run_dir [--user user] (user NULL: the daemon's default)
 * with PERFETTO_PRODUCER_SOCK_NAME set to td's socket. In the child,
 * before the exec, stderr goes to log when it is not NULL, and prep(arg)
 * runs when it is not NULL (a namespace, an environment variable: -1
 * makes the child exit 126). Returns the pid, or -1.
 */
pid_t	probes_daemon_start(const struct tt_traced *td, const char *run_dir,
	    const char *user, const char *log, int (*prep)(void *),
	    void *arg);
/* SIGTERM, then wait: the exit status, 128 when a signal ended it. */
int	probes_daemon_stop(pid_t pid);

/*
 * Ends c's session as a consumer would: Flush (so the daemon writes what
 * it has), DisableTracing, ReadBuffers; the trace in *data (free it) and
 * decoded in *t (tt_trace_free). 0, or -1 at the first step that fails.
 */
int	probes_session_end(struct event_base *base, struct tt_consumer *c,
	    uint8_t **data, size_t *len, struct tt_trace *t);
/* The same mid-session, without the DisableTracing: what the buffers
 * got since the last read. */
int	probes_session_read(struct event_base *base, struct tt_consumer *c,
	    uint8_t **data, size_t *len, struct tt_trace *t);

#endif
