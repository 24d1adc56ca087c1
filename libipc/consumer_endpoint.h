/*
 * The consumer's end of traced's ConsumerPort, shared by every consumer
 * (the faro command, trace_processor --live, the tests), beside
 * producer_endpoint.h for producers:
 *
 *   ipc_client_bind(cl, "ConsumerPort", on_bind)
 *   on_bind -> consumer_ep_bind(&ep, cl, binding)   methods by name
 *   consumer_ep_invoke(&ep, CM_ENABLE, &cfg.base, fd, on_reply, arg)
 *   ReadBuffers replies -> consumer_read.h         whole packets
 *
 * Methods are numbered as upstream declares them (and so as its service
 * numbers them); an older service may lack the newest, which then fail
 * to invoke (consumer_ep_has() says so first).
 */
#ifndef FARO_CONSUMER_ENDPOINT_H
#define FARO_CONSUMER_ENDPOINT_H

#include <stdint.h>

#include "libipc/ipc_client.h"

enum consumer_method {
	CM_ENABLE = 1,		/* EnableTracing */
	CM_DISABLE,		/* DisableTracing */
	CM_READ,		/* ReadBuffers */
	CM_FREE,		/* FreeBuffers */
	CM_FLUSH,		/* Flush */
	CM_START,		/* StartTracing */
	CM_CHANGE_CONFIG,	/* ChangeTraceConfig */
	CM_DETACH,		/* Detach */
	CM_ATTACH,		/* Attach */
	CM_STATS,		/* GetTraceStats */
	CM_OBSERVE,		/* ObserveEvents */
	CM_QUERY,		/* QueryServiceState */
	CM_CAPABILITIES,	/* QueryCapabilities */
	CM_BUGREPORT,		/* SaveTraceForBugreport */
	CM_CLONE,		/* CloneSession */
	CM__COUNT
};

struct consumer_ep {
	struct ipc_client	*cl;
	uint32_t		 sid;
	uint32_t		 mid[CM__COUNT];	/* 0: not offered */
};

/* The method's name in ConsumerPort ("EnableTracing"). */
const char	*consumer_method_name(enum consumer_method);
/* The service bound (b from ipc_client_bind's callback): 0, or -1 when
 * the bind failed (b NULL). */
int		 consumer_ep_bind(struct consumer_ep *, struct ipc_client *,
		    const struct ipc_binding *b);
int		 consumer_ep_has(const struct consumer_ep *,
		    enum consumer_method);
/*
 * Calls the method with args (NULL: an empty request) and fd (-1: none);
 * flags as ipc_client_invoke's. The request id, or 0 when the method is
 * not offered or the request could not be sent.
 */
uint64_t	 consumer_ep_invoke(struct consumer_ep *, enum consumer_method,
		    const ProtobufCMessage *args, int fd, int flags,
		    ipc_result_fn *on_reply, void *arg);
/* The same with the request already packed (len bytes of args). */
uint64_t	 consumer_ep_invoke_raw(struct consumer_ep *,
		    enum consumer_method, const void *args, size_t len, int fd,
		    int flags, ipc_result_fn *on_reply, void *arg);

#endif
