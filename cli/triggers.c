/* Firing activate_triggers through the producer port; see triggers.h. */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "protos/perfetto/ipc/producer_port.pb-c.h"

#include "libipc/ipc_client.h"
#include "libipc/ipc_sockname.h"
#include "base/log.h"
#include "cli/flags.h"
#include "cli/triggers.h"

struct trig {
	struct event_base	*base;
	struct ipc_client	*cl;
	const char		*sock;
	char *const		*names;
	size_t			 n;
	uint32_t		 sid;
	uint32_t		 m_activate;
	int			 connected;
	int			 done;
	int			 code;
};

static void
trig_finish(struct trig *t, int code)
{
	if (t->done)
		return;
	t->done = 1;
	t->code = code;
	event_base_loopbreak(t->base);
}

static void
on_activated(struct ipc_client *cl, struct ipc_result *res, void *arg)
{
	struct trig *t = arg;

	if (!res->success) {
		log_warnx("traced did not take the triggers: %s",
		    res->error != NULL ? res->error : "refused");
		trig_finish(t, FARO_EXIT_ERROR);
		return;
	}
	log_info("Activated %zu trigger%s", t->n, t->n == 1 ? "" : "s");
	trig_finish(t, FARO_EXIT_OK);
}

static void
on_initialized(struct ipc_client *cl, struct ipc_result *res, void *arg)
{
	struct trig *t = arg;
	Perfetto__Protos__ActivateTriggersRequest req =
	    PERFETTO__PROTOS__ACTIVATE_TRIGGERS_REQUEST__INIT;

	if (!res->success) {
		log_warnx("traced refused the producer connection: %s",
		    res->error != NULL ? res->error : "refused");
		trig_finish(t, FARO_EXIT_ERROR);
		return;
	}
	req.n_trigger_names = t->n;
	req.trigger_names = (char **)t->names;
	if (ipc_client_invoke_msg(cl, t->sid, t->m_activate, &req.base, -1, 0,
	    on_activated, t) == 0) {
		log_warnx("cannot send ActivateTriggers");
		trig_finish(t, FARO_EXIT_ERROR);
	}
}

static void
on_bind(struct ipc_client *cl, const struct ipc_binding *b, void *arg)
{
	struct trig *t = arg;
	Perfetto__Protos__InitializeConnectionRequest req =
	    PERFETTO__PROTOS__INITIALIZE_CONNECTION_REQUEST__INIT;
	uint32_t m_init;

	if (b == NULL || (m_init = ipc_binding_method_id(b,
	    "InitializeConnection")) == 0 || (t->m_activate =
	    ipc_binding_method_id(b, "ActivateTriggers")) == 0) {
		log_warnx("traced at %s has no ProducerPort with "
		    "ActivateTriggers", t->sock);
		trig_finish(t, FARO_EXIT_ERROR);
		return;
	}
	t->sid = b->service_id;
	/* The name upstream's command line uses for this connection. */
	req.producer_name = (char *)"perfetto_cmd_producer";
	if (ipc_client_invoke_msg(cl, t->sid, m_init, &req.base, -1, 0,
	    on_initialized, t) == 0) {
		log_warnx("cannot send InitializeConnection");
		trig_finish(t, FARO_EXIT_ERROR);
	}
}

static void
on_event(struct ipc_client *cl, enum ipc_client_event ev, void *arg)
{
	struct trig *t = arg;

	if (ev == IPC_CLIENT_CONNECTED) {
		t->connected = 1;
		if (ipc_client_bind(cl, "ProducerPort", on_bind, t) == -1) {
			log_warnx("cannot bind ProducerPort");
			trig_finish(t, FARO_EXIT_ERROR);
		}
		return;
	}
	t->cl = NULL;
	ipc_client_free(cl);
	if (!t->connected)
		log_warnx("Could not connect to the traced producer socket %s. "
		    "Is traced running? Set PERFETTO_PRODUCER_SOCK_NAME to use "
		    "another socket.", t->sock);
	else if (!t->done)
		log_warnx("traced at %s closed the connection", t->sock);
	trig_finish(t, FARO_EXIT_ERROR);
}

static void
on_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct trig *t = arg;

	log_warnx("timed out sending the triggers to traced at %s", t->sock);
	trig_finish(t, FARO_EXIT_ERROR);
}

int
triggers_activate(struct event_base *base, char *const *names, size_t n)
{
	struct timeval tv = { TRIGGERS_TIMEOUT_MS / 1000,
	    (TRIGGERS_TIMEOUT_MS % 1000) * 1000 };
	const char *list = ipc_sockname(IPC_PORT_PRODUCER);
	char sock[PATH_MAX];
	struct event *ev = NULL;
	struct trig t;

	/* A producer uses the first name of the list. */
	if (ipc_sockname_next(&list, sock, sizeof(sock)) == -1) {
		log_warnx("no usable producer socket name in '%s'",
		    ipc_sockname(IPC_PORT_PRODUCER));
		return FARO_EXIT_ERROR;
	}
	memset(&t, 0, sizeof(t));
	t.base = base;
	t.sock = sock;
	t.names = names;
	t.n = n;
	t.code = FARO_EXIT_ERROR;
	if ((ev = evtimer_new(base, on_timeout, &t)) == NULL ||
	    evtimer_add(ev, &tv) == -1 ||
	    (t.cl = ipc_client_new(base, sock, 0, on_event, &t)) == NULL) {
		log_warnx("Could not connect to the traced producer socket %s",
		    sock);
		goto out;
	}
	event_base_dispatch(base);
out:
	if (t.cl != NULL)
		ipc_client_free(t.cl);
	if (ev != NULL)
		event_free(ev);
	return t.code;
}
