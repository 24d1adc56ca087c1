/*
 * Network ftrace events, drawn as upstream draws them: bytes received and
 * sent per interface as running KB counters, TCP socket states as slices
 * per stream, retransmits as instants, NAPI GRO receives as slices per
 * cpu, and freed IP packets as a running count.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_int.h"

#define EV_NETIF_RECEIVE_SKB	360
#define EV_NET_DEV_XMIT		361
#define EV_INET_SOCK_SET_STATE	362
#define EV_TCP_RETRANSMIT_SKB	363
#define EV_NAPI_GRO_ENTRY	365
#define EV_NAPI_GRO_EXIT	366
#define EV_KFREE_SKB		367

/* From the kernel's uapi headers. */
#define AF_INET_		2
#define AF_INET6_		10
#define IPPROTO_TCP_		6
#define ETH_P_IP_		0x800
#define ETH_P_IPV6_		0x86dd
#define TCP_ESTABLISHED_	1
#define TCP_SYN_SENT_		2

static const char *const tcp_states[] = {
	"TCP_UNKNOWN", "TCP_ESTABLISHED", "TCP_SYN_SENT", "TCP_SYN_RECV",
	"TCP_FIN_WAIT1", "TCP_FIN_WAIT2", "TCP_TIME_WAIT", "TCP_CLOSE",
	"TCP_CLOSE_WAIT", "TCP_LAST_ACK", "TCP_LISTEN", "TCP_CLOSING",
	"TCP_NEW_SYN_RECV",
};
#define NTCP_STATES	(int64_t)(sizeof(tcp_states) / sizeof(tcp_states[0]))

#define DEV_MAX		64

struct tp_fnet {
	struct tp_hash	 bytes;		/* direction and device -> bytes */
	struct tp_hash	 streams;	/* socket address -> stream number */
	uint64_t	 nstreams;
	uint64_t	 kfree_ip;	/* IP packets freed so far */
};

static struct tp_fnet *
net_get(struct tp *tp)
{
	if (tp->fnet == NULL && (tp->fnet = calloc(1,
	    sizeof(*tp->fnet))) != NULL) {
		tp_hash_init(&tp->fnet->bytes);
		tp_hash_init(&tp->fnet->streams);
	}
	return tp->fnet;
}

/* The running KB of an interface in one direction, with the packet's cpu
 * and length as args. */
static void
dev_bytes(struct tp *tp, int64_t ts, uint32_t cpu, int rx,
    const struct tp_ftrace_ev *e)
{
	struct tp_fnet *n = net_get(tp);
	char dev[DEV_MAX], name[DEV_MAX + 32];
	const char *dims[2] = { "network_interface", dev };
	uint64_t h, *v, total;
	uint32_t len = (uint32_t)e->v[1];
	int64_t track, set;

	if (n == NULL)
		return;
	snprintf(dev, sizeof(dev), "%.*s", (int)(e->slen[2] < DEV_MAX ?
	    e->slen[2] : DEV_MAX - 1), e->s[2] != NULL ? e->s[2] : "");
	h = tp_hash_bytes((uint64_t)rx, dev, strlen(dev));
	total = ((v = tp_hash_get(&n->bytes, h)) != NULL ? *v : 0) + len;
	if (tp_hash_put(&n->bytes, h, total) == -1)
		return;
	snprintf(name, sizeof(name), "%s %s KB", dev, rx ? "Received" :
	    "Transmitted");
	track = tp_track_intern_dims(tp, TT_COUNTER, name, TP_NULL, dims, 1);
	if (track < 0)
		return;
	tp_track_kind(tp, track, rx ? "net_receive" : "net_transmit");
	set = tp_arg_set_new(tp);
	tp_arg_int(tp, set, "cpu", "cpu", cpu, "uint");
	tp_arg_int(tp, set, "len", "len", len, "uint");
	tp_counter_insert(tp, ts, track, (double)(total / 1024), set);
}

/* A TCP socket's state as a slice on its stream's track, from this
 * change to the next; other protocols and bad states are skipped. */
static void
sock_state(struct tp *tp, int64_t ts, int64_t pid,
    const struct tp_ftrace_ev *e)
{
	struct tp_fnet *n = net_get(tp);
	int64_t news = (int32_t)e->v[4], olds = (int32_t)e->v[5], track;
	uint64_t skaddr = (uint64_t)e->v[8], *v, stream;
	char name[96], tname[48];

	if (n == NULL || e->v[6] != IPPROTO_TCP_ || (e->v[3] != AF_INET_ &&
	    e->v[3] != AF_INET6_) || news < 0 || news >= NTCP_STATES ||
	    olds < 0 || olds >= NTCP_STATES)
		return;
	if ((v = tp_hash_get(&n->streams, skaddr)) != NULL)
		stream = *v;
	else if (tp_hash_put(&n->streams, skaddr, stream = ++n->nstreams) ==
	    -1)
		return;
	if (news == TCP_SYN_SENT_)
		snprintf(name, sizeof(name), "%s(pid=%" PRIu32 ")",
		    tcp_states[news], (uint32_t)pid);
	else if (news == TCP_ESTABLISHED_)
		snprintf(name, sizeof(name), "%s(sport=%" PRIu32 ",dport=%"
		    PRIu32 ")", tcp_states[news], (uint32_t)e->v[9],
		    (uint32_t)e->v[2]);
	else
		snprintf(name, sizeof(name), "%s", tcp_states[news]);
	snprintf(tname, sizeof(tname), "TCP stream#%" PRIu32,
	    (uint32_t)stream);
	track = tp_track_intern_idim(tp, TT_TRACK, tname, TP_NULL,
	    "tcp_stream_idx", (int64_t)(uint32_t)stream);
	tp_track_kind(tp, track, "net_socket_set_state");
	(void)tp_slice_end(tp, track, ts, NULL, TP_NULL, NULL);
	(void)tp_slice_begin(tp, track, ts, "tcp_state", name, TP_NULL,
	    TP_NULL);
}

static void
napi_gro(struct tp *tp, int64_t ts, uint32_t cpu, int entry,
    const struct tp_ftrace_ev *e)
{
	char tname[48], dev[DEV_MAX];
	int64_t track, set;

	snprintf(tname, sizeof(tname), "Napi Gro Cpu %" PRIu32, cpu);
	track = tp_track_intern(tp, TT_CPU, tname, cpu);
	tp_track_kind(tp, track, "cpu_napi_gro");
	if (entry) {
		/* len 7, name 10 */
		snprintf(dev, sizeof(dev), "%.*s", (int)(e->slen[10] <
		    DEV_MAX ? e->slen[10] : DEV_MAX - 1), e->s[10] != NULL ?
		    e->s[10] : "");
		set = tp_arg_set_new(tp);
		tp_arg_int(tp, set, "len", "len", (uint32_t)e->v[7], "int");
		(void)tp_slice_begin(tp, track, ts, "napi_gro", dev, set,
		    TP_NULL);
		return;
	}
	(void)tp_slice_end_matching(tp, track, ts, "napi_gro", NULL,
	    TP_NULL, &set);
	if (set != TP_NULL)
		tp_arg_int(tp, set, "ret", "ret", (int32_t)e->v[1], "int");
}

int
tp_ftrace_net_event(struct tp *tp, int64_t ts, uint32_t cpu, int64_t pid,
    uint32_t evid, const struct tp_ftrace_ev *e)
{
	struct tp_fnet *n;
	char name[64];
	int64_t track, set;

	switch (evid) {
	case EV_NETIF_RECEIVE_SKB:
		dev_bytes(tp, ts, cpu, 1, e);
		return 1;
	case EV_NET_DEV_XMIT:
		/* rc 3: only packets the driver took */
		if ((int32_t)e->v[3] == 0)
			dev_bytes(tp, ts, cpu, 0, e);
		return 1;
	case EV_INET_SOCK_SET_STATE:
		sock_state(tp, ts, pid, e);
		return 1;
	case EV_TCP_RETRANSMIT_SKB:
		/* dport 2, sport 6 */
		snprintf(name, sizeof(name), "sport=%" PRIu32 ",dport=%"
		    PRIu32, (uint32_t)e->v[6], (uint32_t)e->v[2]);
		track = tp_track_intern(tp, TT_TRACK, "TCP Retransmit Skb",
		    TP_NULL);
		tp_track_kind(tp, track, "net_tcp_retransmit_skb");
		(void)tp_slice_complete(tp, track, ts, 0, "tcp_event", name,
		    TP_NULL, TP_NULL, TP_NULL);
		return 1;
	case EV_NAPI_GRO_ENTRY:
	case EV_NAPI_GRO_EXIT:
		napi_gro(tp, ts, cpu, evid == EV_NAPI_GRO_ENTRY, e);
		return 1;
	case EV_KFREE_SKB:
		/* protocol 2: IP and IPv6 packets only */
		if ((n = net_get(tp)) == NULL || (e->v[2] != ETH_P_IP_ &&
		    e->v[2] != ETH_P_IPV6_))
			return 1;
		n->kfree_ip++;
		track = tp_track_intern(tp, TT_COUNTER, "Kfree Skb IP Prot",
		    TP_NULL);
		if (track < 0)
			return 1;
		tp_track_kind(tp, track, "net_kfree_skb");
		set = tp_arg_set_new(tp);
		if (e->v[2] == ETH_P_IP_)
			tp_arg_str(tp, set, "protocol", "protocol", "IP", 2,
			    NULL);
		else
			tp_arg_str(tp, set, "protocol", "protocol", "IPV6", 4,
			    NULL);
		tp_counter_insert(tp, ts, track, (double)n->kfree_ip, set);
		return 1;
	}
	return 0;
}

void
tp_ftrace_net_free(struct tp *tp)
{
	if (tp->fnet == NULL)
		return;
	tp_hash_free(&tp->fnet->bytes);
	tp_hash_free(&tp->fnet->streams);
	free(tp->fnet);
	tp->fnet = NULL;
}
