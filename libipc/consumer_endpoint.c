/*
 * The consumer's end of ConsumerPort: see consumer_endpoint.h.
 */
#include "config.h"

#include <string.h>

#include "consumer_endpoint.h"

static const char *const consumer_method_names[CM__COUNT] = {
	[CM_ENABLE] = "EnableTracing",
	[CM_DISABLE] = "DisableTracing",
	[CM_READ] = "ReadBuffers",
	[CM_FREE] = "FreeBuffers",
	[CM_FLUSH] = "Flush",
	[CM_START] = "StartTracing",
	[CM_CHANGE_CONFIG] = "ChangeTraceConfig",
	[CM_DETACH] = "Detach",
	[CM_ATTACH] = "Attach",
	[CM_STATS] = "GetTraceStats",
	[CM_OBSERVE] = "ObserveEvents",
	[CM_QUERY] = "QueryServiceState",
	[CM_CAPABILITIES] = "QueryCapabilities",
	[CM_BUGREPORT] = "SaveTraceForBugreport",
	[CM_CLONE] = "CloneSession",
};

const char *
consumer_method_name(enum consumer_method m)
{
	return m > 0 && m < CM__COUNT ? consumer_method_names[m] : "?";
}

int
consumer_ep_bind(struct consumer_ep *ep, struct ipc_client *cl,
    const struct ipc_binding *b)
{
	int m;

	memset(ep, 0, sizeof(*ep));
	if (b == NULL)
		return -1;
	ep->cl = cl;
	ep->sid = b->service_id;
	for (m = CM_ENABLE; m < CM__COUNT; m++)
		ep->mid[m] = ipc_binding_method_id(b, consumer_method_names[m]);
	return 0;
}

int
consumer_ep_has(const struct consumer_ep *ep, enum consumer_method m)
{
	return m > 0 && m < CM__COUNT && ep->mid[m] != 0;
}

uint64_t
consumer_ep_invoke_raw(struct consumer_ep *ep, enum consumer_method m,
    const void *args, size_t len, int fd, int flags, ipc_result_fn *on_reply,
    void *arg)
{
	if (!consumer_ep_has(ep, m) || ep->cl == NULL)
		return 0;
	return ipc_client_invoke(ep->cl, ep->sid, ep->mid[m], args, len, fd,
	    flags, on_reply, arg);
}

uint64_t
consumer_ep_invoke(struct consumer_ep *ep, enum consumer_method m,
    const ProtobufCMessage *args, int fd, int flags, ipc_result_fn *on_reply,
    void *arg)
{
	if (args == NULL)
		return consumer_ep_invoke_raw(ep, m, "", 0, fd, flags,
		    on_reply, arg);
	if (!consumer_ep_has(ep, m) || ep->cl == NULL)
		return 0;
	return ipc_client_invoke_msg(ep->cl, ep->sid, ep->mid[m], args, fd,
	    flags, on_reply, arg);
}
