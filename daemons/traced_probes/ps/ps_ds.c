/*
 * linux.process_stats data source instances (ps_ds.h).
 */
#include <sys/types.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "base/log.h"
#include "packet.h"
#include "procfs.h"
#include "libipc/producer_endpoint.h"
#include "ps_ds.h"
#include "ps_parse.h"

#define PS_MIN_POLL_MS		100	/* as upstream: /proc scans cost */
#define PS_SLICE_BYTES		(32 * 1024)	/* a packet per slice */
#define PS_SLICE_PIDS		128
#define PS_PENDING_MAX		8192	/* queued on-demand pids */
#define PS_PID_LIMIT		4194304	/* the kernel's PID_MAX_LIMIT */

/* ProcessTree.collection_end_timestamp, ProcessStats's */
#define PT_COLLECTION_END	3
#define PST_COLLECTION_END	2

enum ps_scan { SCAN_NONE, SCAN_TREE, SCAN_STATS };

/*
 * proc_stats_cache_ttl_ms: the last values written per pid; a poll
 * writes only what changed, and the cache is forgotten every ttl so
 * every value is restated now and then (as upstream).
 */
struct ps_cached {
	int32_t		 pid;		/* 0: free slot */
	uint32_t	 have_mem;
	int		 have_oom;
	int64_t		 oom;
	uint64_t	 mem_kb[PS_MEM_N];
};

struct bitmap {
	uint8_t		*bits;
	size_t		 size;		/* bytes */
};

struct ps_ds {
	struct event_base	*base;
	struct producer_ep	*ep;
	uint64_t		 id;
	struct shm_writer	*w;

	int			 thread_names;
	int			 on_demand;
	uint32_t		 poll_ms;

	struct event		*ev_poll;
	struct event		*ev_turn;
	int			 poll_due;
	enum ps_scan		 scan;		/* SCAN_NONE: no list */
	int32_t			*scan_pids;	/* /proc at the scan's start */
	size_t			 scan_n, scan_next;

	struct bitmap		 seen;		/* described in the tree */
	struct bitmap		 nomem;		/* no memory counters */
	struct bitmap		 queued;	/* in pending[] */
	int32_t			*pending;
	size_t			 npending;
	uint64_t		 pending_dropped;
	uint64_t		 polls_skipped;
	struct ps_cached	*cache;		/* open addressing by pid */
	size_t			 cache_size;	/* slots, a power of two */
	size_t			 cache_used;
	unsigned		 cache_ticks;	/* polls per ttl; < 2: off */
	unsigned		 cache_age;
	int			 cleared;	/* incremental state */

	/* the open packet */
	struct pbw		*pw;
	enum ps_scan		 pkt;

	char			 status[8192];
	char			 tstatus[8192];
	char			 cmdline[16384];
	char			 small[256];

	struct ps_ds		*next;
};

/* Live instances, for ps_ds_on_pids_seen. */
static struct ps_ds *live;

static int
bit_test(const struct bitmap *b, int32_t pid)
{
	size_t i = (size_t)pid / 8;

	return pid >= 0 && i < b->size && (b->bits[i] >> (pid % 8)) & 1;
}

static int
bit_set(struct bitmap *b, int32_t pid)
{
	size_t i = (size_t)pid / 8, nsize;
	uint8_t *nb;

	if (pid < 0 || pid >= PS_PID_LIMIT)
		return -1;
	if (i >= b->size) {
		nsize = (i + 4096) & ~(size_t)4095;
		if ((nb = realloc(b->bits, nsize)) == NULL)
			return -1;
		memset(nb + b->size, 0, nsize - b->size);
		b->bits = nb;
		b->size = nsize;
	}
	b->bits[i] |= (uint8_t)(1u << (pid % 8));
	return 0;
}

static void
bit_clear(struct bitmap *b, int32_t pid)
{
	size_t i = (size_t)pid / 8;

	if (pid >= 0 && i < b->size)
		b->bits[i] &= (uint8_t)~(1u << (pid % 8));
}

static void
bit_reset(struct bitmap *b)
{
	free(b->bits);
	b->bits = NULL;
	b->size = 0;
}

static void
cache_reset(struct ps_ds *ds)
{
	free(ds->cache);
	ds->cache = NULL;
	ds->cache_size = ds->cache_used = 0;
}

/* The slot of pid, inserted if absent; NULL when out of memory. */
static struct ps_cached *
cache_get(struct ps_ds *ds, int32_t pid)
{
	struct ps_cached *old = ds->cache, *c;
	size_t osize = ds->cache_size, i;

	if (ds->cache_used * 2 >= ds->cache_size) {
		size_t nsize = osize ? osize * 2 : 1024;

		if ((c = calloc(nsize, sizeof(*c))) == NULL)
			return NULL;
		ds->cache = c;
		ds->cache_size = nsize;
		ds->cache_used = 0;
		for (i = 0; i < osize; i++)
			if (old[i].pid != 0)
				*cache_get(ds, old[i].pid) = old[i];
		free(old);
	}
	for (i = (size_t)pid * 2654435761u & (ds->cache_size - 1);;
	    i = (i + 1) & (ds->cache_size - 1)) {
		c = &ds->cache[i];
		if (c->pid == pid)
			return c;
		if (c->pid == 0) {
			memset(c, 0, sizeof(*c));
			c->pid = pid;
			ds->cache_used++;
			return c;
		}
	}
}

static void
packet_close(struct ps_ds *ds)
{
	if (ds->pw == NULL)
		return;
	pbw_varint(ds->pw, ds->pkt == SCAN_TREE ? PT_COLLECTION_END :
	    PST_COLLECTION_END, procfs_boottime_ns());
	pbw_nested_end(ds->pw);
	shm_writer_packet_end(ds->w);
	ds->pw = NULL;
}

static struct pbw *
packet_open(struct ps_ds *ds, enum ps_scan kind)
{
	if (ds->pw != NULL && ds->pkt != kind)
		packet_close(ds);
	if (ds->pw == NULL) {
		ds->pw = probe_packet_begin(ds->w, procfs_boottime_ns());
		if (ds->cleared) {
			pbw_bool(ds->pw, TP_INCREMENTAL_STATE_CLEARED, 1);
			ds->cleared = 0;
		}
		pbw_nested_begin(ds->pw, kind == SCAN_TREE ? TP_PROCESS_TREE :
		    TP_PROCESS_STATS);
		ds->pkt = kind;
	}
	return ds->pw;
}

static void
queue_pid(struct ps_ds *ds, int32_t pid)
{
	if (pid <= 0 || bit_test(&ds->seen, pid) || bit_test(&ds->queued, pid))
		return;
	if (ds->npending == PS_PENDING_MAX || bit_set(&ds->queued, pid) == -1) {
		ds->pending_dropped++;
		return;
	}
	ds->pending[ds->npending++] = pid;
}

static void
turn_schedule(struct ps_ds *ds)
{
	static const struct timeval now = { 0, 0 };

	/* a timer, not event_active: socket I/O runs between slices */
	if (!evtimer_pending(ds->ev_turn, NULL))
		evtimer_add(ds->ev_turn, &now);
}

/* A thread of tgid, its name from comm when asked. */
static void
write_thread(struct ps_ds *ds, int32_t tid, int32_t tgid)
{
	ssize_t n = -1;

	if (ds->thread_names)
		n = procfs_pid_readf(ds->small, sizeof(ds->small), NULL,
		    "/proc/%d/task/%d/comm", (int)tgid, (int)tid);
	ps_write_tree_thread(packet_open(ds, SCAN_TREE), tid, tgid,
	    n >= 0 ? ds->small : NULL, n >= 0 ?
	    ps_comm_trim(ds->small, (size_t)n) : 0);
	(void)bit_set(&ds->seen, tid);
}

/* A process (st from its status) and its main thread. */
static void
write_process(struct ps_ds *ds, const struct ps_status *st)
{
	ssize_t n;

	n = procfs_pid_readf(ds->cmdline, sizeof(ds->cmdline), NULL,
	    "/proc/%d/cmdline", (int)st->pid);
	ps_write_tree_process(packet_open(ds, SCAN_TREE), st, ds->cmdline,
	    n > 0 ? (size_t)n : 0);
	/* the main thread too, so its name is on record */
	ps_write_tree_thread(ds->pw, st->pid, st->pid,
	    ds->thread_names ? st->name : NULL,
	    ds->thread_names ? strlen(st->name) : 0);
	(void)bit_set(&ds->seen, st->pid);
}

static int
read_status(struct ps_ds *ds, char *buf, size_t size, int32_t pid,
    struct ps_status *st)
{
	ssize_t n;

	n = procfs_pid_readf(buf, size, NULL, "/proc/%d/status", (int)pid);
	if (n <= 0)
		return -1;	/* gone: nothing to say about it */
	return ps_status_parse_untrusted(buf, (size_t)n, st);
}

/* Full scan: one process and all its threads. */
static void
scan_tree_pid(struct ps_ds *ds, int32_t pid)
{
	struct ps_status st;
	int32_t *tids;
	size_t n;

	if (read_status(ds, ds->status, sizeof(ds->status), pid, &st) == -1 ||
	    st.tgid != pid)
		return;
	write_process(ds, &st);
	if (procfs_pid_list(pid, &tids, &n) == -1)
		return;
	for (size_t i = 0; i < n; i++)
		if (tids[i] != pid)
			write_thread(ds, tids[i], pid);
	free(tids);
}

/* Poll: memory counters of one process. */
static void
scan_stats_pid(struct ps_ds *ds, int32_t pid)
{
	struct ps_status st;
	struct ps_cached *c = NULL;
	int64_t oom = 0;
	uint32_t mask;
	ssize_t n;
	int have_oom;

	if (bit_test(&ds->nomem, pid))
		return;
	if (read_status(ds, ds->status, sizeof(ds->status), pid, &st) == -1 ||
	    st.tgid != pid)
		return;
	if (st.have_mem == 0) {
		/* a kernel thread: no need to read it again */
		(void)bit_set(&ds->nomem, pid);
		return;
	}
	n = procfs_pid_readf(ds->small, sizeof(ds->small), NULL,
	    "/proc/%d/oom_score_adj", (int)pid);
	have_oom = n > 0 &&
	    ps_oom_parse_untrusted(ds->small, (size_t)n, &oom) == 0;
	mask = st.have_mem;
	if (ds->cache_ticks > 1 && (c = cache_get(ds, pid)) != NULL) {
		for (int i = 0; i < PS_MEM_N; i++)
			if ((c->have_mem & (1u << i)) &&
			    c->mem_kb[i] == st.mem_kb[i])
				mask &= ~(1u << i);
		if (have_oom && c->have_oom && c->oom == oom)
			have_oom = 0;
		c->have_mem |= st.have_mem;
		memcpy(c->mem_kb, st.mem_kb, sizeof(c->mem_kb));
		if (have_oom) {
			c->have_oom = 1;
			c->oom = oom;
		}
	}
	if (mask != 0 || have_oom)
		(void)ps_write_stats_process(packet_open(ds, SCAN_STATS),
		    &st, mask, have_oom, oom);
	/* new since the last look: describe it after this packet */
	queue_pid(ds, pid);
}

/* On demand: a pid (process or thread) the tree does not have yet. */
static void
describe_pid(struct ps_ds *ds, int32_t pid)
{
	struct ps_status st, tst;

	if (bit_test(&ds->seen, pid))
		return;
	if (read_status(ds, ds->status, sizeof(ds->status), pid, &st) == -1)
		return;
	if (!bit_test(&ds->seen, st.tgid)) {
		if (st.tgid == pid)
			write_process(ds, &st);
		else if (read_status(ds, ds->tstatus, sizeof(ds->tstatus),
		    st.tgid, &tst) == 0 && tst.tgid == st.tgid)
			write_process(ds, &tst);
	}
	if (pid != st.tgid) {
		ps_write_tree_thread(packet_open(ds, SCAN_TREE), pid, st.tgid,
		    ds->thread_names ? st.name : NULL,
		    ds->thread_names ? strlen(st.name) : 0);
		(void)bit_set(&ds->seen, pid);
	}
}

static int
slice_full(struct ps_ds *ds, unsigned done)
{
	return done >= PS_SLICE_PIDS ||
	    (ds->pw != NULL && pbw_written(ds->pw) >= PS_SLICE_BYTES);
}

/* A scan of every process: the pids of /proc now, walked in slices. */
static void
scan_begin(struct ps_ds *ds, enum ps_scan kind, const char *fn)
{
	if (procfs_pid_list(0, &ds->scan_pids, &ds->scan_n) == -1) {
		log_warn("%s: /proc", fn);
		return;
	}
	ds->scan_next = 0;
	ds->scan = kind;
}

static void
scan_end(struct ps_ds *ds)
{
	free(ds->scan_pids);
	ds->scan_pids = NULL;
	ds->scan_n = ds->scan_next = 0;
	ds->scan = SCAN_NONE;
}

/* One slice of whatever work is due; reschedules itself while some is. */
static void
ps_turn(evutil_socket_t fd, short what, void *arg)
{
	struct ps_ds *ds = arg;
	unsigned done = 0;
	int32_t pid;

	/* a due poll goes first: a stream of new pids must not starve it */
	if (ds->scan == SCAN_NONE && ds->poll_due) {
		ds->poll_due = 0;
		scan_begin(ds, SCAN_STATS, __func__);
	}
	if (ds->scan != SCAN_NONE) {
		while (!slice_full(ds, done) && ds->scan_next < ds->scan_n) {
			pid = ds->scan_pids[ds->scan_next++];
			if (ds->scan == SCAN_TREE)
				scan_tree_pid(ds, pid);
			else
				scan_stats_pid(ds, pid);
			done++;
		}
		if (ds->scan_next == ds->scan_n)
			scan_end(ds);
	} else {
		while (!slice_full(ds, done) && ds->npending > 0) {
			pid = ds->pending[--ds->npending];
			bit_clear(&ds->queued, pid);
			describe_pid(ds, pid);
			done++;
		}
	}
	packet_close(ds);
	if (ds->scan != SCAN_NONE || ds->npending > 0 || ds->poll_due)
		turn_schedule(ds);
}

static void
ps_poll(evutil_socket_t fd, short what, void *arg)
{
	struct ps_ds *ds = arg;

	if (ds->poll_due || ds->scan == SCAN_STATS)
		ds->polls_skipped++;	/* the last one is still running */
	if (ds->cache_ticks > 1 && ++ds->cache_age >= ds->cache_ticks) {
		ds->cache_age = 0;
		cache_reset(ds);
	}
	ds->poll_due = 1;
	turn_schedule(ds);
}

struct ps_ds *
ps_ds_start(struct event_base *base, struct producer_ep *ep, uint64_t id,
    const Perfetto__Protos__DataSourceConfig *cfg)
{
	const Perfetto__Protos__ProcessStatsConfig *pc =
	    cfg->process_stats_config;
	struct timeval tv;
	struct ps_ds *ds;
	const char *cause = NULL;
	uint32_t ttl_ms = 0;
	int scan_all = 0;

	if ((ds = calloc(1, sizeof(*ds))) == NULL) {
		log_warnx("%s: out of memory", __func__);
		return NULL;
	}
	ds->base = base;
	ds->ep = ep;
	ds->id = id;
	ds->on_demand = 1;
	if (pc != NULL) {
		scan_all = pc->scan_all_processes_on_start;
		ds->thread_names = pc->record_thread_names;
		ds->poll_ms = pc->proc_stats_poll_ms;
		ttl_ms = pc->proc_stats_cache_ttl_ms;
		for (size_t i = 0; i < pc->n_quirks; i++)
			if (pc->quirks[i] == PERFETTO__PROTOS__PROCESS_STATS_CONFIG__QUIRKS__DISABLE_ON_DEMAND)
				ds->on_demand = 0;
	}
	if (ds->poll_ms > 0 && ds->poll_ms < PS_MIN_POLL_MS) {
		log_info("%s: proc_stats_poll_ms %u raised to %u", __func__,
		    ds->poll_ms, PS_MIN_POLL_MS);
		ds->poll_ms = PS_MIN_POLL_MS;
	}
	if (ds->poll_ms > 0)
		ds->cache_ticks = ttl_ms / ds->poll_ms;
	ds->pending = calloc(PS_PENDING_MAX, sizeof(*ds->pending));
	ds->ev_turn = evtimer_new(base, ps_turn, ds);
	if (ds->poll_ms > 0)
		ds->ev_poll = event_new(base, -1, EV_PERSIST, ps_poll, ds);
	ds->w = producer_ep_writer_new(ep, cfg->target_buffer,
	    SHM_POLICY_DROP, &cause);
	if (ds->pending == NULL || ds->ev_turn == NULL ||
	    (ds->poll_ms > 0 && ds->ev_poll == NULL) || ds->w == NULL) {
		log_warnx("%s: instance %llu: %s", __func__,
		    (unsigned long long)id, cause ? cause : "out of memory");
		ds->next = NULL;
		if (ds->w != NULL)
			producer_ep_writer_free(ep, ds->w);
		if (ds->ev_poll != NULL)
			event_free(ds->ev_poll);
		if (ds->ev_turn != NULL)
			event_free(ds->ev_turn);
		free(ds->pending);
		free(ds);
		return NULL;
	}
	if (scan_all)
		scan_begin(ds, SCAN_TREE, __func__);
	if (ds->poll_ms > 0) {
		tv.tv_sec = ds->poll_ms / 1000;
		tv.tv_usec = (ds->poll_ms % 1000) * 1000;
		event_add(ds->ev_poll, &tv);
		ds->poll_due = 1;	/* a first sample at the start */
	}
	/* The first slice now: the start is acknowledged with data. */
	ps_turn(-1, 0, ds);
	shm_writer_flush(ds->w);
	ds->next = live;
	live = ds;
	log_debug("%s: instance %llu: tree %d, poll %u ms, on demand %d",
	    __func__, (unsigned long long)id, scan_all, ds->poll_ms,
	    ds->on_demand);
	return ds;
}

void
ps_ds_flush(struct ps_ds *ds)
{
	packet_close(ds);
	shm_writer_flush(ds->w);
}

void
ps_ds_clear_incremental_state(struct ps_ds *ds)
{
	bit_reset(&ds->seen);
	bit_reset(&ds->nomem);
	cache_reset(ds);
	ds->cleared = 1;
}

void
ps_ds_stop(struct ps_ds *ds)
{
	struct ps_ds **pp;

	for (pp = &live; *pp != NULL; pp = &(*pp)->next)
		if (*pp == ds) {
			*pp = ds->next;
			break;
		}
	packet_close(ds);
	scan_end(ds);
	if (ds->pending_dropped > 0 || ds->polls_skipped > 0)
		log_info("%s: instance %llu: %llu on-demand pids dropped "
		    "(queue full), %llu polls skipped (scan too slow)",
		    __func__, (unsigned long long)ds->id,
		    (unsigned long long)ds->pending_dropped,
		    (unsigned long long)ds->polls_skipped);
	if (ds->ev_poll != NULL)
		event_free(ds->ev_poll);
	event_free(ds->ev_turn);
	producer_ep_writer_free(ds->ep, ds->w);
	bit_reset(&ds->seen);
	bit_reset(&ds->nomem);
	bit_reset(&ds->queued);
	cache_reset(ds);
	free(ds->pending);
	free(ds);
}

void
ps_ds_on_pids_seen(const int32_t *pids, size_t n)
{
	struct ps_ds *ds;
	size_t before;

	for (ds = live; ds != NULL; ds = ds->next) {
		if (!ds->on_demand)
			continue;
		before = ds->npending;
		for (size_t i = 0; i < n; i++)
			queue_pid(ds, pids[i]);
		if (ds->npending != before)
			turn_schedule(ds);
	}
}
