/*
 * binder: slices for transactions between threads, from the binder
 * driver's ftrace events (proto bundles or text), as upstream shows them.
 *
 *   sender                               receiver
 *   binder_transaction(id)  ---------->  binder_transaction_received(id)
 *   [binder transaction ..........       [binder reply .......
 *                                        binder_transaction(id2, reply)
 *   binder_transaction_received(id2)     ....... ]
 *   ......... ]
 *
 * A oneway transaction is an instant on each side ("binder transaction
 * async", "binder async rcv"). Each non-reply transaction gets a flow from
 * the sender's slice to the receiver's.
 *
 * A failed transaction never sees its reply. The commands to the driver
 * (BC_*) and its returns (BR_*) tell where each thread is, frame by frame
 * (transactions nest: a receiver may call out before it replies), so a
 * BR_*_REPLY failure ends the sender's slice that would stay open.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_int.h"

/* FtraceEvent fields. */
#define EV_BINDER_TRANSACTION	50
#define EV_BINDER_RECEIVED	51
#define EV_BINDER_LOCK		53
#define EV_BINDER_LOCKED	54
#define EV_BINDER_UNLOCK	55
#define EV_BINDER_ALLOC_BUF	323
#define EV_BINDER_COMMAND	485
#define EV_BINDER_RETURN	486

/* Commands to the driver. */
#define BC_TRANSACTION		0x40406300u
#define BC_REPLY		0x40406301u
#define BC_TRANSACTION_SG	0x40486311u
#define BC_REPLY_SG		0x40486312u

/* Returns from the driver. */
#define BR_TRANSACTION_SEC_CTX	0x80487202u
#define BR_TRANSACTION		0x80407202u
#define BR_REPLY		0x80407203u
#define BR_DEAD_REPLY		0x7205u
#define BR_TRANSACTION_COMPLETE	0x7206u
#define BR_FAILED_REPLY		0x7211u
#define BR_FROZEN_REPLY		0x7212u
#define BR_ONEWAY_SPAM_SUSPECT	0x7213u
#define BR_TRANSACTION_PENDING_FROZEN 0x7214u

/* Transaction flags. */
#define TF_ONE_WAY		0x01u
#define TF_ROOT_OBJECT		0x04u
#define TF_STATUS_CODE		0x08u
#define TF_ACCEPT_FDS		0x10u

#define CAT			"binder"
#define N_TXN			"binder transaction"
#define N_TXN_ASYNC		"binder transaction async"
#define N_REPLY			"binder reply"
#define N_ASYNC_RCV		"binder async rcv"
#define N_LOCK_WAIT		"binder lock waiting"
#define N_LOCK_HELD		"binder lock held"

/* Where a thread stands in one transaction (one frame of its stack). */
enum frame_state {
	SND_AFTER_BC_TRANSACTION,
	SND_AFTER_TRANSACTION,
	SND_AFTER_BR_TRANSACTION_COMPLETE,
	SND_AFTER_RECEIVED,
	RCV_AFTER_RECEIVED,
	RCV_AFTER_BR_TRANSACTION,
	RCV_AFTER_BC_REPLY,
	RCV_AFTER_TRANSACTION,
};

struct frame {
	uint8_t		 state;		/* enum frame_state */
	uint8_t		 has_txn;	/* the two below are known */
	uint8_t		 oneway;
	uint8_t		 reply;
};

struct frames {
	struct frame	*f;
	size_t		 n, cap;
};

/* A transaction sent and not received yet: what its receiver needs. */
struct txn {
	int64_t		 id, dest_node, dest_tgid, tid;
	uint32_t	 flags;
	int		 reply, oneway;
	char		*code;
	int64_t		 send_track;
	int64_t		 send_slice;	/* -1: none */
};

struct tp_fbinder {
	struct tp_hash	 txns;		/* transaction id -> struct txn * */
	struct frames	*stacks;	/* by utid */
	size_t		 nstacks;
	struct tp_hash	 lock_wait;	/* tid -> ts of binder_lock */
	struct tp_hash	 lock_held;	/* tid -> ts of binder_locked */
};

static struct tp_fbinder *
binder_state(struct tp *tp)
{
	struct tp_fbinder *b = tp->fbinder;

	if (b == NULL && (b = tp->fbinder = calloc(1, sizeof(*b))) != NULL) {
		tp_hash_init(&b->txns);
		tp_hash_init(&b->lock_wait);
		tp_hash_init(&b->lock_held);
	}
	return b;
}

/* The thread's stack of frames; NULL when it cannot be had. */
static struct frames *
stack_of(struct tp_fbinder *b, int64_t utid, int grow)
{
	if (utid < 0)
		return NULL;
	if ((size_t)utid >= b->nstacks) {
		size_t n = b->nstacks ? b->nstacks : 16;
		struct frames *p;

		if (!grow)
			return NULL;
		while (n <= (size_t)utid)
			n *= 2;
		if ((p = realloc(b->stacks, n * sizeof(*p))) == NULL)
			return NULL;
		memset(p + b->nstacks, 0, (n - b->nstacks) * sizeof(*p));
		b->stacks = p;
		b->nstacks = n;
	}
	return &b->stacks[utid];
}

static struct frame *
frame_top(struct tp *tp, struct tp_fbinder *b, int64_t tid)
{
	struct frames *s = stack_of(b, tp_thread_get(tp, tid), 0);

	return s != NULL && s->n > 0 ? &s->f[s->n - 1] : NULL;
}

static struct frame *
frame_push(struct tp *tp, struct tp_fbinder *b, int64_t tid,
    enum frame_state state)
{
	struct frames *s = stack_of(b, tp_thread_get(tp, tid), 1);
	struct frame *f;

	if (s == NULL)
		return NULL;
	if (s->n == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 4;
		void *p = realloc(s->f, ncap * sizeof(*s->f));

		if (p == NULL)
			return NULL;
		s->f = p;
		s->cap = ncap;
	}
	f = &s->f[s->n++];
	memset(f, 0, sizeof(*f));
	f->state = (uint8_t)state;
	return f;
}

static void
frame_pop(struct tp *tp, struct tp_fbinder *b, int64_t tid)
{
	struct frames *s = stack_of(b, tp_thread_get(tp, tid), 0);

	if (s != NULL && s->n > 0)
		s->n--;
}

/*
 * The args binder gives its slices. A key given again to a slice still
 * open (a reply ending the wrong slice when events were lost, a buffer
 * size for a slice called back into) takes its place, as upstream.
 */
enum bkey {
	K_TXN_ID, K_DEST_NODE, K_DEST_PROC, K_REPLY, K_FLAGS, K_CODE,
	K_CALLING_TID, K_DEST_THREAD, K_DEST_NAME, K_DATA_SIZE,
	K_OFFSETS_SIZE, K_COUNT
};

static const char *const bkey_names[K_COUNT] = {
	[K_TXN_ID] = "transaction id",
	[K_DEST_NODE] = "destination node",
	[K_DEST_PROC] = "destination process",
	[K_REPLY] = "reply transaction?",
	[K_FLAGS] = "flags",
	[K_CODE] = "code",
	[K_CALLING_TID] = "calling tid",
	[K_DEST_THREAD] = "destination thread",
	[K_DEST_NAME] = "destination name",
	[K_DATA_SIZE] = "data size",
	[K_OFFSETS_SIZE] = "offsets size",
};

static void
barg_int(struct tp *tp, int64_t set, enum bkey k, int64_t v,
    const char *type)
{
	/* A key given again replaces its value, in its place. */
	tp_arg_int(tp, set, bkey_names[k], bkey_names[k], v, type);
}

static void
barg_str(struct tp *tp, int64_t set, enum bkey k, const char *v)
{
	tp_arg_str(tp, set, bkey_names[k], bkey_names[k], v, strlen(v),
	    NULL);
}

/* Ends the thread's innermost open slice, as a reply or failure does. */
static void
end_top(struct tp *tp, int64_t track, int64_t ts)
{
	int64_t d = tp_slice_find_open(tp, track, NULL, NULL);

	if (d < 0)
		return;
	(void)tp_slice_end_matching(tp, track, ts, NULL, NULL, TP_NULL, NULL);
}

/* The flags arg: hex, then what the bits mean. */
static void
flags_arg(struct tp *tp, int64_t set, uint32_t flags)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "0x%02x %s%s%s%s%s", flags,
	    flags & TF_ONE_WAY ? "this is a one-way call: async, no return; " :
	    "", flags & TF_ROOT_OBJECT ?
	    "contents are the components root object; " : "",
	    flags & TF_STATUS_CODE ? "contents are a 32-bit status code; " : "",
	    flags & TF_ACCEPT_FDS ?
	    "allow replies with file descriptors; " : "",
	    flags == 0 ? "No Flags Set" : "");
	barg_str(tp, set, K_FLAGS, buf);
}

static void
txn_args(struct tp *tp, int64_t set, const struct txn *t)
{
	if (set == TP_NULL)
		return;
	barg_int(tp, set, K_TXN_ID, t->id, "int");
	barg_int(tp, set, K_DEST_NODE, t->dest_node, "int");
	barg_int(tp, set, K_DEST_PROC, t->dest_tgid, "int");
	barg_int(tp, set, K_REPLY, t->reply, "bool");
	flags_arg(tp, set, t->flags);
	barg_str(tp, set, K_CODE, t->code);
	barg_int(tp, set, K_CALLING_TID, t->tid, "uint");
}

/* The receiving thread as args of a slice: its tid, and its name when
 * known. */
static void
dest_args(struct tp *tp, int64_t set, int64_t utid, int64_t tid,
    const char *type)
{
	const char *name = tp->threads[utid].name;

	if (set == TP_NULL)
		return;
	barg_int(tp, set, K_DEST_THREAD, tid, type);
	if (name != NULL)
		barg_str(tp, set, K_DEST_NAME, name);
}

static void
txn_free(struct txn *t)
{
	free(t->code);
	free(t);
}

void
tp_binder_transaction(struct tp *tp, int64_t ts, int64_t tid,
    const struct tp_binder_txn *in)
{
	struct tp_fbinder *b = binder_state(tp);
	struct txn *t, *old;
	struct frame *f;
	uint64_t *slot;
	int64_t track, set, dutid;

	if (b == NULL || (t = calloc(1, sizeof(*t))) == NULL)
		return;
	if ((t->code = strdup(in->code)) == NULL) {
		free(t);
		return;
	}
	t->id = in->id;
	t->dest_node = in->dest_node;
	t->dest_tgid = in->dest_tgid;
	t->tid = tid;
	t->flags = in->flags;
	t->reply = in->reply;
	t->oneway = (in->flags & TF_ONE_WAY) != 0;
	track = t->send_track = tp_thread_track(tp, tp_thread_get(tp, tid));
	if (t->reply) {
		/* The reply ends the receiver's "binder reply", which learns
		 * whom it answered. */
		dutid = tp_thread_get(tp, in->dest_tid);
		dest_args(tp, tp_slice_open_args(tp, track, CAT, N_REPLY), dutid,
		    in->dest_tid, "int");
		(void)tp_slice_end_matching(tp, track, ts, NULL, NULL, TP_NULL,
		    &set);
		txn_args(tp, set, t);
		t->send_slice = -1;
	} else {
		set = tp_arg_set_new(tp);
		txn_args(tp, set, t);
		if (t->oneway) {
			t->send_slice = tp_slice_complete(tp, track, ts, 0, CAT,
			    N_TXN_ASYNC, set, TP_NULL, TP_NULL);
		} else {
			t->send_slice = tp_slice_begin(tp, track, ts, CAT,
			    N_TXN, set, TP_NULL);
		}
	}
	/* A transaction id seen again replaces the one before. */
	if ((slot = tp_hash_get(&b->txns, (uint64_t)in->id)) != NULL) {
		old = (struct txn *)(uintptr_t)*slot;
		txn_free(old);
		*slot = (uint64_t)(uintptr_t)t;
	} else if (tp_hash_put(&b->txns, (uint64_t)in->id,
	    (uint64_t)(uintptr_t)t) == -1) {
		txn_free(t);
		return;
	}
	if ((f = frame_top(tp, b, tid)) == NULL)
		return;
	if (f->state == SND_AFTER_BC_TRANSACTION ||
	    f->state == RCV_AFTER_BC_REPLY) {
		f->state = f->state == SND_AFTER_BC_TRANSACTION ?
		    SND_AFTER_TRANSACTION : RCV_AFTER_TRANSACTION;
		f->has_txn = 1;
		f->oneway = (uint8_t)t->oneway;
		f->reply = (uint8_t)t->reply;
	} else if (f->state == RCV_AFTER_RECEIVED) {
		/* No commands in the trace: the frame would never end. */
		frame_pop(tp, b, tid);
	}
}

void
tp_binder_received(struct tp *tp, int64_t ts, int64_t tid, int64_t id)
{
	struct tp_fbinder *b = binder_state(tp);
	struct txn *t;
	struct frame *f;
	uint64_t *slot;
	int64_t utid, track, rcv, set;

	/* A transaction sent before the trace began: its kind is not
	 * known, so neither is its slice. */
	if (b == NULL || (slot = tp_hash_get(&b->txns, (uint64_t)id)) ==
	    NULL)
		return;
	t = (struct txn *)(uintptr_t)*slot;
	(void)tp_hash_del(&b->txns, (uint64_t)id);
	utid = tp_thread_get(tp, tid);
	track = tp_thread_track(tp, utid);
	if (!t->oneway && !t->reply) {
		if ((f = frame_push(tp, b, tid, RCV_AFTER_RECEIVED)) != NULL)
			f->has_txn = 1;
	} else if (!t->oneway) {
		f = frame_top(tp, b, tid);
		if (f != NULL && f->state == SND_AFTER_BR_TRANSACTION_COMPLETE)
			f->state = SND_AFTER_RECEIVED;
	}
	if (t->reply) {
		/* The reply ends the sender's "binder transaction". */
		end_top(tp, track, ts);
		txn_free(t);
		return;
	}
	if (t->oneway) {
		set = tp_arg_set_new(tp);
		txn_args(tp, set, t);
		rcv = tp_slice_complete(tp, track, ts, 0, CAT, N_ASYNC_RCV, set,
		    TP_NULL, TP_NULL);
	} else {
		dest_args(tp, tp_slice_open_args(tp, t->send_track, CAT, N_TXN),
		    utid, tid, "uint");
		rcv = tp_slice_begin(tp, track, ts, CAT, N_REPLY, TP_NULL,
		    TP_NULL);
	}
	if (t->send_slice >= 0 && rcv >= 0)
		tp_flow_insert(tp, t->send_slice, rcv, TP_NULL, TP_NULL);
	txn_free(t);
}

void
tp_binder_command(struct tp *tp, int64_t tid, uint32_t cmd)
{
	struct tp_fbinder *b = binder_state(tp);
	struct frame *f;

	if (b == NULL)
		return;
	if (cmd == BC_TRANSACTION || cmd == BC_TRANSACTION_SG) {
		(void)frame_push(tp, b, tid, SND_AFTER_BC_TRANSACTION);
	} else if (cmd == BC_REPLY || cmd == BC_REPLY_SG) {
		f = frame_top(tp, b, tid);
		if (f != NULL && f->state == RCV_AFTER_BR_TRANSACTION)
			f->state = RCV_AFTER_BC_REPLY;
	}
}

/* A reply that will not come: the thread's frame ends, and with it the
 * slice of a synchronous call it sent. */
static void
return_failed(struct tp *tp, struct tp_fbinder *b, int64_t ts, int64_t tid,
    struct frame *f)
{
	switch (f->state) {
	case SND_AFTER_BC_TRANSACTION:
		/* Failed before binder_transaction: no slice began. */
		break;
	case RCV_AFTER_BC_REPLY:
	case SND_AFTER_TRANSACTION:
	case RCV_AFTER_TRANSACTION:
	case SND_AFTER_BR_TRANSACTION_COMPLETE:
		if (f->has_txn && !f->oneway && !f->reply)
			end_top(tp, tp_thread_track(tp, tp_thread_get(tp, tid)),
			    ts);
		break;
	default:
		/* Still waiting on the other side: the frame stays. */
		return;
	}
	frame_pop(tp, b, tid);
}

void
tp_binder_return(struct tp *tp, int64_t ts, int64_t tid, uint32_t cmd)
{
	struct tp_fbinder *b = binder_state(tp);
	struct frame *f;

	if (b == NULL)
		return;
	switch (cmd) {
	case BR_DEAD_REPLY:
	case BR_FAILED_REPLY:
	case BR_FROZEN_REPLY:
	case BR_TRANSACTION_PENDING_FROZEN:
		if ((f = frame_top(tp, b, tid)) != NULL)
			return_failed(tp, b, ts, tid, f);
		break;
	case BR_TRANSACTION_COMPLETE:
	case BR_ONEWAY_SPAM_SUSPECT:
		/* The last event of a reply sent, of a oneway call, or of
		 * a call whose binder_transaction was not traced; a
		 * synchronous call now waits for its reply. */
		if ((f = frame_top(tp, b, tid)) == NULL)
			break;
		if (f->state == SND_AFTER_TRANSACTION && f->has_txn &&
		    !f->oneway)
			f->state = SND_AFTER_BR_TRANSACTION_COMPLETE;
		else if (f->state == RCV_AFTER_TRANSACTION ||
		    f->state == SND_AFTER_BC_TRANSACTION ||
		    f->state == SND_AFTER_TRANSACTION)
			frame_pop(tp, b, tid);
		break;
	case BR_REPLY:
		if ((f = frame_top(tp, b, tid)) != NULL &&
		    f->state == SND_AFTER_RECEIVED)
			frame_pop(tp, b, tid);
		break;
	case BR_TRANSACTION:
	case BR_TRANSACTION_SEC_CTX:
		if ((f = frame_top(tp, b, tid)) != NULL &&
		    f->state == RCV_AFTER_RECEIVED)
			f->state = RCV_AFTER_BR_TRANSACTION;
		break;
	default:
		break;
	}
}

/* binder_transaction_alloc_buf: the sizes join the thread's open
 * transaction slice. */
void
tp_binder_alloc_buf(struct tp *tp, int64_t tid, uint64_t data_size,
    uint64_t offsets_size)
{
	int64_t track, set;

	if (binder_state(tp) == NULL)
		return;
	track = tp_thread_track(tp, tp_thread_get(tp, tid));
	if ((set = tp_slice_open_args(tp, track, CAT, N_TXN)) == TP_NULL)
		return;
	barg_int(tp, set, K_DATA_SIZE, (int64_t)data_size, "uint");
	barg_int(tp, set, K_OFFSETS_SIZE, (int64_t)offsets_size, "uint");
}

/*
 * The global binder lock of kernels before 4.14: waiting from binder_lock
 * to binder_locked, then held until binder_unlock.
 */
void
tp_binder_lock(struct tp *tp, int64_t ts, int64_t tid, int what)
{
	struct tp_fbinder *b = binder_state(tp);
	int64_t utid, track;

	if (b == NULL)
		return;
	utid = tp_thread_get(tp, tid);
	switch (what) {
	case TP_BINDER_LOCK:
		(void)tp_hash_put(&b->lock_wait, (uint64_t)tid, (uint64_t)ts);
		(void)tp_slice_begin(tp, tp_thread_track(tp, utid), ts, CAT,
		    N_LOCK_WAIT, TP_NULL, TP_NULL);
		break;
	case TP_BINDER_LOCKED:
		/* Locked without a lock seen: no track is made. */
		if (tp_hash_get(&b->lock_wait, (uint64_t)tid) == NULL)
			break;
		track = tp_thread_track(tp, utid);
		(void)tp_slice_end_matching(tp, track, ts, NULL, NULL, TP_NULL,
		    NULL);
		(void)tp_slice_begin(tp, track, ts, CAT, N_LOCK_HELD, TP_NULL,
		    TP_NULL);
		(void)tp_hash_put(&b->lock_held, (uint64_t)tid, (uint64_t)ts);
		(void)tp_hash_del(&b->lock_wait, (uint64_t)tid);
		break;
	case TP_BINDER_UNLOCK:
		if (tp_hash_get(&b->lock_held, (uint64_t)tid) == NULL)
			break;
		(void)tp_slice_end_matching(tp, tp_thread_track(tp, utid), ts,
		    CAT, N_LOCK_HELD, TP_NULL, NULL);
		(void)tp_hash_del(&b->lock_held, (uint64_t)tid);
		break;
	}
}

int
tp_ftrace_binder_event(struct tp *tp, int64_t ts, uint32_t cpu,
    int64_t pid, uint32_t evid, const struct tp_ftrace_ev *e)
{
	struct tp_binder_txn t;
	char code[48];

	(void)cpu;
	switch (evid) {
	case EV_BINDER_TRANSACTION:
		/* debug_id 1, target_node 2, to_proc 3, to_thread 4, reply 5,
		 * code 6, flags 7 */
		snprintf(code, sizeof(code), "0x%02x Java Layer Dependent",
		    (uint32_t)e->v[6]);
		t.id = (int32_t)e->v[1];
		t.dest_node = (int32_t)e->v[2];
		t.dest_tgid = (uint32_t)e->v[3];
		t.dest_tid = (uint32_t)e->v[4];
		t.reply = (int32_t)e->v[5] == 1;
		t.flags = (uint32_t)e->v[7];
		t.code = code;
		tp_binder_transaction(tp, ts, pid, &t);
		return 1;
	case EV_BINDER_RECEIVED:
		tp_binder_received(tp, ts, pid, (int32_t)e->v[1]);
		return 1;
	case EV_BINDER_COMMAND:
		tp_binder_command(tp, pid, (uint32_t)e->v[1]);
		return 1;
	case EV_BINDER_RETURN:
		tp_binder_return(tp, ts, pid, (uint32_t)e->v[1]);
		return 1;
	case EV_BINDER_ALLOC_BUF:
		/* data_size 1, offsets_size 3 */
		tp_binder_alloc_buf(tp, pid, (uint64_t)e->v[1],
		    (uint64_t)e->v[3]);
		return 1;
	case EV_BINDER_LOCK:
		tp_binder_lock(tp, ts, pid, TP_BINDER_LOCK);
		return 1;
	case EV_BINDER_LOCKED:
		tp_binder_lock(tp, ts, pid, TP_BINDER_LOCKED);
		return 1;
	case EV_BINDER_UNLOCK:
		tp_binder_lock(tp, ts, pid, TP_BINDER_UNLOCK);
		return 1;
	}
	return 0;
}

void
tp_ftrace_binder_free(struct tp *tp)
{
	struct tp_fbinder *b = tp->fbinder;
	uint64_t key, val;
	size_t i, it;

	if (b == NULL)
		return;
	for (it = 0; tp_hash_next(&b->txns, &it, &key, &val);)
		txn_free((struct txn *)(uintptr_t)val);
	tp_hash_free(&b->txns);
	for (i = 0; i < b->nstacks; i++)
		free(b->stacks[i].f);
	free(b->stacks);
	tp_hash_free(&b->lock_wait);
	tp_hash_free(&b->lock_held);
	free(b);
	tp->fbinder = NULL;
}
